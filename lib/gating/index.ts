export * from './fsm-gate.js';
export * from './fsm-call.js';
export * from './fsm-refusal.error.js';
export * from './fsm-refusals.js';
export * from './mcp-workflow.service.js';
export * from './mcp-execution-context.js';
export * from './fsm-gate-options.interface.js';
export * from './unknown-state.reporter.js';
