export { createWebHandler, type WebHandlerOptions } from './create-web-handler.js';
