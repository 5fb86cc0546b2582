/** Name under which the module's tracer and meter report (the instrumentation scope). */
export const INSTRUMENTATION_SCOPE = 'nestjs-mcp-fsm';

// Attributes of the OpenTelemetry semantic conventions for MCP (gen-ai, Development status).

/** The request's method: `tools/call`. */
export const MCP_METHOD_NAME = 'mcp.method.name';
/** The `Mcp-Session-Id` of a stateful session. */
export const MCP_SESSION_ID = 'mcp.session.id';
/** The negotiated protocol version: `2025-11-25`. */
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
/** The URI of `resources/read`, `resources/subscribe`, `resources/unsubscribe`. */
export const MCP_RESOURCE_URI = 'mcp.resource.uri';
/** The tool of a `tools/call`. */
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** The prompt of a `prompts/get`. */
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
/** `execute_tool` on a `tools/call`, so tool calls read alike across instrumentations. */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** A tool call's arguments (JSON), opt-in. */
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** A tool call's result (JSON), opt-in. */
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** The JSON-RPC id of the request, as a string. */
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
/** The code of a JSON-RPC error answer, as a string. */
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
/** How the request failed (see docs/observability.md#spans). */
export const ERROR_TYPE = 'error.type';
/** `tcp` for HTTP, `pipe` for stdio. */
export const NETWORK_TRANSPORT = 'network.transport';
/** `http` on HTTP. */
export const NETWORK_PROTOCOL_NAME = 'network.protocol.name';
/** The HTTP version of the request that carried it: `1.1`, `2`. */
export const NETWORK_PROTOCOL_VERSION = 'network.protocol.version';
/** The address of the HTTP client (the peer of the connection). */
export const CLIENT_ADDRESS = 'client.address';
/** The port of the HTTP client. */
export const CLIENT_PORT = 'client.port';

/** `error.type` of a tool result with `isError: true` (a refusal's included), as the convention says. */
export const TOOL_ERROR = 'tool_error';

// The workflow attributes of a gated call (this module's own).

/** The machine of the call's workflow. */
export const WORKFLOW_MACHINE = 'workflow.machine';
/** The event the tool fires. */
export const WORKFLOW_EVENT = 'workflow.event';
/** The state the call was admitted in. */
export const WORKFLOW_STATE_FROM = 'workflow.state.from';
/** The state the call stored. */
export const WORKFLOW_STATE_TO = 'workflow.state.to';
/** The refusal code of a refused call. */
export const WORKFLOW_REFUSAL_CODE = 'workflow.refusal.code';
/** Who acted: the caller's principal (`sub`), never its team; absent for an anonymous caller. */
export const WORKFLOW_ACTOR = 'workflow.actor';
/** How a call decided a request waiting for a second person (`@McpApproval`): `approved`, `rejected` or `withdrawn`. */
export const WORKFLOW_APPROVAL_VERDICT = 'workflow.approval.verdict';
/** Who asked for the request a call decided (its `workflow.actor` decided it); absent for an anonymous requester. */
export const WORKFLOW_APPROVAL_REQUESTED_BY = 'workflow.approval.requested_by';
/** The request a call decided, or parked (its `requestId`). */
export const WORKFLOW_APPROVAL_REQUEST_ID = 'workflow.approval.request_id';
/** The instance's keyed digest (never the handle). */
export const WORKFLOW_INSTANCE_ID = 'workflow.instance.id';
/** What came of a transition: `committed`, a refusal code, `tool_error` or `abandoned` (a `workflow.transitions` attribute). */
export const WORKFLOW_OUTCOME = 'workflow.outcome';

/** Histogram of each request's duration, in seconds (the convention's). */
export const MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
/** Histogram of each session's duration, in seconds (the convention's). */
export const MCP_SERVER_SESSION_DURATION = 'mcp.server.session.duration';
/** Counter of the calls of tools that fire an event, by machine, event and outcome. */
export const WORKFLOW_TRANSITIONS = 'workflow.transitions';

/** Child span of a gated call: the store's claim. */
export const WORKFLOW_CLAIM_SPAN = 'workflow.claim';
/** Child span of a gated call: the commit of its transition. */
export const WORKFLOW_COMMIT_SPAN = 'workflow.commit';

/** `workflow.outcome` of a transition that was stored. */
export const OUTCOME_COMMITTED = 'committed';
/** `workflow.outcome` of a call abandoned at shutdown (nothing stored). */
export const OUTCOME_ABANDONED = 'abandoned';

/** The bucket boundaries (seconds) the convention gives both duration histograms. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
