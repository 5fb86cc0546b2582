/** Name and version under which the module's tracer and meter report (the instrumentation scope). */
export const INSTRUMENTATION_SCOPE = 'nestjs-mcp-fsm';

/** Span and metric attributes of the OpenTelemetry MCP semantic conventions (gen-ai, Development status). */
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_SESSION_ID = 'mcp.session.id';
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const MCP_RESOURCE_URI = 'mcp.resource.uri';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ERROR_TYPE = 'error.type';
export const NETWORK_TRANSPORT = 'network.transport';
export const NETWORK_PROTOCOL_NAME = 'network.protocol.name';

/** `error.type` of a tool result with `isError: true` that is not a refusal, as the convention says. */
export const TOOL_ERROR = 'tool_error';

/** The workflow attributes of a gated call (this module's own). */
export const WORKFLOW_MACHINE = 'workflow.machine';
export const WORKFLOW_EVENT = 'workflow.event';
export const WORKFLOW_STATE_FROM = 'workflow.state.from';
export const WORKFLOW_STATE_TO = 'workflow.state.to';
export const WORKFLOW_REFUSAL_CODE = 'workflow.refusal.code';
export const WORKFLOW_INSTANCE_ID = 'workflow.instance.id';
export const WORKFLOW_OUTCOME = 'workflow.outcome';

/** Metrics. */
export const MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
export const MCP_SERVER_SESSION_DURATION = 'mcp.server.session.duration';
export const WORKFLOW_TRANSITIONS = 'workflow.transitions';

/** Child spans of a gated call. */
export const WORKFLOW_CLAIM_SPAN = 'workflow.claim';
export const WORKFLOW_COMMIT_SPAN = 'workflow.commit';

/** `workflow.outcome` of a transition that was stored. */
export const OUTCOME_COMMITTED = 'committed';
/** `workflow.outcome` of a call abandoned at shutdown (nothing stored). */
export const OUTCOME_ABANDONED = 'abandoned';

/** The bucket boundaries (seconds) the convention gives both duration histograms. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
