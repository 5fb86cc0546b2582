/**
 * A JSON-RPC error answered as is. The SDK sends a thrown error's `code`, `message` and
 * `data`; unlike the SDK's `McpError`, this adds no "MCP error N:" prefix of its own, so the
 * client (which adds one) shows the message once.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}
