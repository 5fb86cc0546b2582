export * from './mcp-tool-context.interface.js';
