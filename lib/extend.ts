/**
 * `nestjs-mcp-fsm/extend`: the extension points. A gate subclass (`gate` option) and what
 * its protected methods see; the store and relay protocols a store or relay of your own
 * implements (prove it with `nestjs-mcp-fsm/testing`); the registries a gate subclass reads
 * (it is created in the module's core, so it may inject them; the app may not); the metadata keys of the decorators; the JSON-RPC codes of refusals in `refusal: 'jsonrpc'`
 * mode and of unknown resources.
 */
export { MCP_REFUSAL_JSONRPC_CODE, MCP_RESOURCE_NOT_FOUND_CODE } from './results/json-rpc.codes.js';
export { WorkflowGate } from './gating/workflow-gate.js';
export { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './gating/workflow-gate-options.interface.js';
export {
  WorkflowCall,
  type MutableToolContext,
  type WorkflowCaller,
  type WorkflowCallerKind,
  type WorkflowDecisionTarget,
  type WorkflowIdempotency,
  type WorkflowRequest,
  type WorkflowCallShown,
} from './gating/workflow-call.js';
export { WorkflowCutoff } from './gating/workflow-cutoff.js';
export type { WorkflowCallOutcome } from './gating/workflow-call-outcome.js';
export type {
  McpCallResult,
  WorkflowAdmission,
  WorkflowDecision,
  WorkflowHold,
  WorkflowInstanceRef,
  WorkflowSettlement,
  WorkflowStored,
} from './gating/workflow-step-values.js';
export { InMemoryMcpTaskStore } from './stores/in-memory-mcp-task.store.js';
export {
  WORKFLOW_TASK_RESULTS,
  type WorkflowTaskRef,
  type WorkflowTaskResults,
  type WorkflowTaskWithdrawal,
  type WorkflowTaskWithdrawn,
} from './gating/workflow-task.js';
export {
  MCP_TASK_ACTIVE_STATUSES,
  MCP_TASK_TERMINAL_STATUSES,
  McpTaskStore,
  type McpTaskChange,
  type McpTaskCursor,
  type McpTaskError,
  type McpTaskRecord,
  type McpTaskStatus,
} from './stores/mcp-task-store.interface.js';
export { WorkflowRefusal, type WorkflowRefusalCode, type WorkflowRefusalData } from './gating/workflow-refusal.js';
export { WorkflowRefusals } from './gating/workflow-refusals.js';
export { WorkflowDenial, type WorkflowDenialReason } from './gating/workflow-denial.js';
export { UnknownStateReporter } from './gating/unknown-state.reporter.js';
export { WorkflowAdmissions } from './gating/workflow-admissions.js';
export { WorkflowCommits, type WorkflowAnswered } from './gating/workflow-commits.js';
export { WorkflowReceipts, callFingerprint } from './gating/workflow-receipts.js';
export {
  WorkflowConfirmations,
  CONFIRMATION_INPUT_KEY,
  type ConfirmationAnswer,
  type ConfirmationSubject,
  type ConfirmedSubject,
} from './gating/workflow-confirmations.js';
export {
  WorkflowApprovals,
  type WorkflowApprovedSend,
  type WorkflowRejectedResult,
  type WorkflowWaitingResult,
} from './gating/workflow-approvals.js';
export { WorkflowWaitingRequests } from './gating/workflow-waiting-requests.js';
export { WORKFLOW_CONFIRMATION_OPTIONS, type WorkflowConfirmationOptions } from './gating/confirmation-options.interface.js';
export { McpMachineRegistry, type McpMachineEngineChoice } from './machines/machine-registry.js';
export type { MachineEngine, MachineState, MachineStep } from './machines/machine-engine.interface.js';
export { McpToolRegistry } from './registry/mcp-tool.registry.js';
export type { McpToolDefinition } from './registry/mcp-tool-definition.interface.js';
export type {
  McpBoundRole,
  McpGatedRole,
  McpHandlerRole,
  McpReadRole,
  McpStartRole,
  McpStateRole,
  McpToolConfirmation,
  McpTransitionRole,
  McpUngatedRole,
} from './registry/mcp-handler-role.js';
export { McpSessionRegistry } from './sessions/mcp-session.registry.js';
export { WorkflowTransitionBus, type WorkflowTransitionEvent } from './relays/workflow-transition.bus.js';
export type { RelayedTransition, TransitionRelay, TransitionRelayHealth } from './relays/transition-relay.interface.js';
export { WORKFLOW_GATE_OBSERVER, type WorkflowGateObserver } from './gating/workflow-gate-observer.interface.js';
export type { RelayedReply, SessionReplyRelay } from './relays/session-reply-relay.interface.js';
export {
  isAtomicFsmStateStore,
  type AtomicFsmStateStore,
  type WorkflowClaimRequest,
  type WorkflowClaimResult,
  type WorkflowCommit,
  type WorkflowSweepRequest,
} from './stores/atomic-fsm-state-store.interface.js';
export {
  isTransactionalFsmStateStore,
  type TransactionalFsmStateStore,
  type WorkflowLockRequest,
  type FsmTransaction,
} from './stores/transactional-fsm-state-store.interface.js';
export type { WorkflowTransitionRecord } from './stores/workflow-transition-record.interface.js';
export { isOpenTo, mayClaim, type WorkflowAccessor } from './stores/workflow-access.js';
export {
  isListedFor,
  isShownTo,
  isWorkflowStateReader,
  type WorkflowHistoryPage,
  matchesSearch,
  pageInMemory,
  type WorkflowInstanceCount,
  type WorkflowInstanceCursor,
  type WorkflowInstancePage,
  type WorkflowInstanceQuery,
  type WorkflowInstanceSummary,
  type WorkflowInstanceViewer,
  type WorkflowStateCount,
  type FsmStateReader,
  type WorkflowWaitingInstance,
  type WorkflowWaitingPage,
  type WorkflowWaitingQuery,
} from './stores/workflow-state-reader.interface.js';
export { isWorkflowAttemptLog, type FsmAttemptLog, type WorkflowAttemptRecord } from './stores/workflow-attempt.interface.js';
export type { McpSessionRecord, McpStoredEvent } from './stores/mcp-session-store.interface.js';
export { McpSessionRecordError } from './stores/mcp-session-record.error.js';
export {
  MCP_BIND_STATE_METADATA,
  MCP_CONFIRM_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_START_WORKFLOW_METADATA,
  MCP_TOOL_METADATA,
  MCP_WORKFLOW_METADATA,
} from './mcp.constants.js';
export { MCP_SERVER_METADATA } from './decorators/served-by.decorator.js';
export { MCP_REQUIRE_METADATA, type McpRequireMetadata } from './decorators/mcp-require.decorator.js';
export { McpAccessPolicy, type McpAccessRefusal } from './auth/mcp-access.policy.js';
export type { McpBindStateMetadata } from './decorators/bind-state.decorator.js';
export type { McpConfirmMetadata } from './decorators/confirm.decorator.js';
export type { McpStartWorkflowMetadata } from './decorators/start-workflow.decorator.js';
export { McpParamtype, type McpParamMetadata } from './decorators/tool-params.decorator.js';
export { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
export {
  isWorkflowTimerStore,
  type WorkflowDueTimer,
  type WorkflowPendingTimer,
  type WorkflowTimerChanges,
  type WorkflowTimerClaimRequest,
  type WorkflowTimerEntry,
  type FsmTimerStore,
} from './stores/workflow-timer.interface.js';
export type { WorkflowDeadlineFiring, WorkflowOutsideSender } from './gating/workflow-call.js';
export { isWorkflowEventLog, type FsmEventLog, type WorkflowEventReceipt } from './stores/workflow-event.interface.js';
export {
  isWorkflowCallReceiptLog,
  type WorkflowCallAnswer,
  type WorkflowCallReceipt,
  type FsmReceiptLog,
} from './stores/workflow-call-receipt.interface.js';
export { WorkflowDeadlineScheduler } from './deadlines/workflow-deadline.scheduler.js';
/** `@McpDeadline` is here, not at the root, while the root's budget of runtime exports (house rules) is full. */
export { McpDeadline, type McpDeadlineMetadata } from './decorators/mcp-deadline.decorator.js';
