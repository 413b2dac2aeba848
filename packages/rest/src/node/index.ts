export { toNodeHandler, type NodeHandler, type NodeRequest } from './to-node-handler.js';
export { stringifyJson } from './stringify-json.js';
