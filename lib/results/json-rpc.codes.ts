/** Every JSON-RPC error code the module answers with, in one place. */

/** The body is not JSON (JSON-RPC). */
export const JSON_RPC_PARSE_ERROR = -32700;
/** Not a valid JSON-RPC request, or one the server refuses as such (JSON-RPC; an `HttpException` below 500 of a prompt or resource). */
export const JSON_RPC_INVALID_REQUEST = -32600;
/** The method does not exist, or (tasks) a tool is called as a task it does not accept, or without the task it requires (JSON-RPC). */
export const JSON_RPC_METHOD_NOT_FOUND = -32601;
/** The method's params are wrong: unknown tool, prompt or template variable, bad arguments (JSON-RPC). */
export const JSON_RPC_INVALID_PARAMS = -32602;
/** The server failed (JSON-RPC). */
export const JSON_RPC_INTERNAL_ERROR = -32603;
/** A server error the transport answers outside any request: a refused host or origin, a session refused at admission (JSON-RPC server range). */
export const JSON_RPC_SERVER_ERROR = -32000;
/** The request names a session this server does not know (MCP Streamable HTTP). */
export const MCP_SESSION_NOT_FOUND_CODE = -32001;
/** JSON-RPC error code of a `resources/read` for a URI the server does not serve (MCP spec). */
export const MCP_RESOURCE_NOT_FOUND_CODE = -32002;
/** A 2026-07-28 request needs a client capability it did not declare (SEP-2164). */
export const MCP_MISSING_CLIENT_CAPABILITY_CODE = -32021;
/** JSON-RPC error code of a refusal in `refusal: 'jsonrpc'` mode (Invalid params). */
export const MCP_REFUSAL_JSONRPC_CODE = JSON_RPC_INVALID_PARAMS;
/** JSON-RPC error code of a call abandoned at shutdown (`transports.http.drainMs` ran out): nothing of it was stored. */
export const MCP_SHUTDOWN_JSONRPC_CODE = JSON_RPC_SERVER_ERROR;
/** A call of a tool, prompt or resource whose `@McpRequire` the caller does not meet, answered in-band (over HTTP it is HTTP 403 first). */
export const MCP_ACCESS_DENIED_CODE = -32003;
/**
 * A request the server could not answer because a store did not (a task store, the workflow
 * store behind a list): nothing was done, the same request may be sent again (JSON-RPC server
 * range, `data.code` is `STATE_UNAVAILABLE`). A tool call answers the tool error STATE_UNAVAILABLE instead.
 */
export const MCP_STATE_UNAVAILABLE_CODE = JSON_RPC_SERVER_ERROR;
