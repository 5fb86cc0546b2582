export * from '../tools/mcp-tool-definition.interface.js';
export * from './mcp-metadata.accessor.js';
export * from '../tools/mcp-tool.registry.js';
