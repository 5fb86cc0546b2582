export * from './streamable-http.transport.js';
export * from './stdio.transport.js';
export * from './host-origin.validator.js';
export * from './attachment-key.js';
