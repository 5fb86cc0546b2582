export * from './mcp-tool.decorator.js';
export * from './bind-state.decorator.js';
export * from './start-workflow.decorator.js';
export * from './mcp-workflow.decorator.js';
export * from './tool-params.decorator.js';
export * from './machine-ref.type.js';
