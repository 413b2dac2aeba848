export { canonicalJson, compareCodePoints, pythonNumber } from './canonical-json.js';
export { structuralSchema } from './structural-schema.js';
export { computeFileId, computeSchemaDataId, computeSchemaId } from './compute-ids.js';
