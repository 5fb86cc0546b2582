export { McpModule } from './mcp.module.js';
export type { McpModuleAsyncOptions, McpOptionsFactory } from './mcp.module-definition.js';
export type { McpModuleOptions } from './options/mcp-module-options.interface.js';
export type { McpAuthOptions } from './auth/auth-options.interface.js';
export type { McpJwtOptions } from './auth/jwt-options.interface.js';
export type { McpConsoleOptions, McpConsoleRequest } from './console/console-options.interface.js';
export type { McpGateOptions } from './gating/mcp-gate-options.interface.js';
export type { McpRetentionOptions } from './gating/retention-options.interface.js';
export type { McpDeadlineOptions } from './gating/deadline-options.interface.js';
export type { McpInputRequestOptions } from './protocol/input-request-options.interface.js';
export type { McpSessionOptions } from './sessions/session-options.interface.js';
export type { McpTelemetryOptions } from './telemetry/telemetry-options.interface.js';
export type { McpHttpTransportOptions } from './transports/http-transport-options.interface.js';
export { MCP_CONTEXT_TYPE } from './mcp.constants.js';
export { MCP_SHUTDOWN_JSONRPC_CODE } from './results/json-rpc.codes.js';
export { McpTool, type McpToolOptions } from './decorators/mcp-tool.decorator.js';
export { McpPrompt, type McpPromptOptions } from './decorators/mcp-prompt.decorator.js';
export {
  McpResource,
  type McpFixedResourceOptions,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
} from './decorators/mcp-resource.decorator.js';
export type { McpCompleter, McpCompletionContext } from './decorators/mcp-completer.type.js';
export { McpWorkflow } from './decorators/mcp-workflow.decorator.js';
export type { McpMachineRef } from './decorators/machine-ref.type.js';
export { McpBindState, type McpBindStateOptions, type McpTypedBindStateOptions } from './decorators/bind-state.decorator.js';
export { BindState } from './decorators/bind-state.decorator.js';
export { McpStartWorkflow, type McpStartWorkflowOptions } from './decorators/start-workflow.decorator.js';
export { StartWorkflow } from './decorators/start-workflow.decorator.js';
export { McpConfirm, type McpConfirmMessage, type McpConfirmOptions } from './decorators/confirm.decorator.js';
export { McpApproval, type McpApprovalOptions, type McpApprovalToolOptions, type McpApprovers } from './decorators/approval.decorator.js';
export { McpInputRequired, mcpInputRequired, type McpInputRequest, type McpInputRequiredSpec } from './results/input-required.js';
export { McpServedBy } from './decorators/served-by.decorator.js';
export { McpArgs, McpContext } from './decorators/tool-params.decorator.js';
export type { McpApprovalContext, McpToolContext } from './decorators/mcp-tool-context.interface.js';
export type { WorkflowContext } from './decorators/workflow-context.interface.js';
export { McpExecutionContext } from './gating/mcp-execution-context.js';
export {
  McpWorkflowService,
  type McpWorkflowCallContext,
  type McpWorkflowHandleRef,
  type McpWorkflowInstance,
  type McpWorkflowRef,
} from './gating/mcp-workflow.service.js';
export type { McpWorkflowDecision } from './gating/back-office.request.js';
export { McpApprovalsService, type McpDecider, type McpDecisionRequest } from './gating/mcp-approvals.service.js';
export type { McpPendingRequest } from './gating/workflow-waiting-requests.js';
export type {
  McpWorkflowEvent,
  McpWorkflowEventContext,
  McpWorkflowEventTarget,
  McpWorkflowEventType,
  McpWorkflowSendOptions,
  McpWorkflowSendResult,
} from './gating/outside-event.interface.js';
export { defineMachine } from './machines/define-machine.js';
export type {
  McpMachine,
  McpMachineConfig,
  McpMachineOptions,
  McpStateNodeConfig,
  McpTransitionConfig,
} from './machines/machine.interface.js';
export type { McpStateValue } from './machines/state-value.js';
export type {
  McpGuardReason,
  McpInstanceAccessView,
  McpMachineAccess,
  McpMachineApproval,
  McpMachineEvent,
  McpPrincipal,
} from './machines/machine-access.js';
export { toMermaid, type McpMermaidOptions, type McpMermaidTool } from './diagram/to-mermaid.js';
export { FsmStateStore, type WorkflowSnapshot } from './stores/fsm-state-store.interface.js';
export type {
  WorkflowApprovalNote,
  WorkflowApprovalVerdict,
  WorkflowRequester,
  WorkflowWaitingRequest,
} from './stores/workflow-waiting-request.interface.js';
export { InMemoryFsmStateStore, type InMemoryFsmStateStoreOptions } from './stores/in-memory-fsm-state.store.js';
export { McpSessionStore } from './stores/mcp-session-store.interface.js';
export { InMemoryMcpSessionStore } from './stores/in-memory-mcp-session.store.js';
export type { McpTaskStore } from './stores/mcp-task-store.interface.js';
export type { McpTaskOptions } from './tasks/task-options.interface.js';
export { McpStderrLogger } from './transports/mcp-stderr.logger.js';
export { McpRequire, type McpRequireOptions } from './decorators/mcp-require.decorator.js';
export { defineAccess, type McpAccessDeclaration } from './access/define-access.js';
export { McpAuthenticator, type McpAuthDenial, type McpAuthentication, type McpAuthorization } from './auth/mcp.authenticator.js';
export type { McpTokenVerifier } from './access/token-verifier.interface.js';
export { McpInvalidTokenError } from './auth/invalid-token.error.js';
export { McpAuthUnavailableError } from './auth/auth-unavailable.error.js';
export type { McpAccessRequirement, McpGrants } from './access/access-requirement.js';
export type { McpProtectedResourceMetadata } from './auth/protected-resource.metadata.js';
export { MCP_ACCESS_DENIED_CODE } from './results/json-rpc.codes.js';
export { McpHealthService, type McpDeadlineHealth, type McpRelayHealth, type McpStoreHealth } from './health/mcp-health.service.js';
export type { MachineDeadline, MachineTimer, MachineTimers } from './machines/machine-engine.interface.js';
