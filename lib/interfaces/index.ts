export * from './mcp-module-options.interface.js';
export * from './mcp-tool-context.interface.js';
