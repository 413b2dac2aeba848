export * from './documents.js';
export * from './evaluations.js';
export * from './inference-settings.js';
export * from './iterations.js';
export * from './json.js';
export * from './lists.js';
export * from './metadata.js';
export * from './processors.js';
