export * from './fsm-gate.js';
export { WorkflowCall, type WorkflowCaller, type MutableToolContext } from './fsm-call.js';
export type { WorkflowCallOutcome, WorkflowInstanceRef } from './fsm-call-outcome.js';
export * from './fsm-refusal.error.js';
export * from './fsm-refusals.js';
export * from './mcp-workflow.service.js';
export * from './mcp-execution-context.js';
export * from './fsm-gate-options.interface.js';
export * from './unknown-state.reporter.js';
