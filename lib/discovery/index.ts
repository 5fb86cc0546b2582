export * from './mcp-tool-definition.interface.js';
export * from './mcp-metadata.accessor.js';
export * from './mcp-tool.registry.js';
