export * from './errors.js';
export * from './json/assert-json.js';
export * from './json-schema/compile.js';
export * from './schemas/index.js';
export type * from './storage.js';
export * from './extractor.js';
export type * from './service/types.js';
export * from './service/update-record.js';
