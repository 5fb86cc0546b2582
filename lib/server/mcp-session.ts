import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { instanceStoreKey } from '../gating/fsm-handle.js';

/** How a connection reached the server. */
export type McpSessionKind = 'stateful' | 'stateless' | 'stdio';

/**
 * One MCP connection: its SDK server, the key of its session-keyed instances, the
 * handle-keyed instances it started or used, and the menu it was last shown.
 */
export class McpSession {
  /** Store keys of handle-keyed instances this session started or used. */
  readonly handles = new Set<string>();
  /** Last known state per store key, refreshed by `tools/list` and transitions. */
  readonly knownStates = new Map<string, string>();
  /** Signature of the menu this session was last shown or told about. */
  lastMenu?: string;
  lastSeen = Date.now();

  constructor(
    readonly kind: McpSessionKind,
    readonly server: Server,
    /** `Mcp-Session-Id` of a stateful HTTP session. */
    readonly id: string | undefined,
    /**
     * Instance key of session-keyed machines: `session:<id>`, `attachment:<id>` (stdio and
     * single-tenant stateless), or `undefined` when this connection has no session state.
     */
    readonly instanceKey: string | undefined,
  ) {}

  /** Store key of this session's instance of a session-keyed machine. */
  sessionStoreKey(machine: string): string | undefined {
    return this.instanceKey === undefined ? undefined : instanceStoreKey(machine, this.instanceKey);
  }

  touch(): void {
    this.lastSeen = Date.now();
  }
}
