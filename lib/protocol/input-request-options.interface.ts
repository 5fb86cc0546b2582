/**
 * What the server asks the client for mid-call (`McpModuleOptions.inputRequests`): a person's
 * yes before a confirmed transition (`@McpConfirm`), and the elicitation, sampling and roots
 * requests of handlers that return `mcpInputRequired(...)`. A 2025-11-25 session is asked
 * with server requests on the call's stream; a 2026-07-28 call gets an input-required result
 * and calls again with the answers and the `requestState` (see docs/confirmations.md).
 */
export interface McpInputRequestOptions {
  /**
   * How long a 2025-11-25 session waits for the client's answer to one request (a person
   * reading the question); then a confirmation is `DECLINED` saying so.
   * @default 300_000 (5 minutes)
   */
  timeoutMs?: number;
  /**
   * The HMAC-SHA256 key that signs `requestState` (2026-07-28): at least 32 bytes, the same
   * on every replica behind one endpoint, secret. A state signed with another key is refused.
   * @default a random key per process (logged at startup): a retry that reaches another
   *   replica or a restarted process is refused
   */
  requestStateKey?: string | Uint8Array;
  /**
   * How long a `requestState` is valid (whole seconds); an older one is refused.
   * @default 600_000 (10 minutes)
   */
  requestStateTtlMs?: number;
  /**
   * Rounds of one 2025-11-25 call whose handler keeps returning `mcpInputRequired(...)`;
   * beyond, the call fails with an error naming the option.
   * @default 8
   */
  maxRounds?: number;
}

/** `inputRequests` as the protocol layer reads it: how `requestState` is signed, and the rounds of a 2025-11-25 call. */
export interface McpResolvedInputRequestOptions {
  /** How long a 2025-11-25 session waits for the client's answer to one request. */
  timeoutMs: number;
  /** The HMAC key of `requestState`, at least 32 bytes. */
  requestStateKey: Uint8Array;
  /** Whether the key was made up for this process (no `requestStateKey`): the startup log says replicas need a shared one. */
  requestStateKeyGenerated: boolean;
  /** How long a `requestState` is valid. */
  requestStateTtlMs: number;
  /** Rounds of one 2025-11-25 call whose handler keeps asking for input. */
  maxRounds: number;
}

/** Injection token of the {@link McpResolvedInputRequestOptions}. */
export const MCP_INPUT_REQUEST_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedInputRequestOptions');
