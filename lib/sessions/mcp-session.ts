import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { NO_GRANTS, type McpGrants } from '../access/access-requirement.js';
import type { WorkflowCaller, WorkflowCallerKind } from '../gating/workflow-call.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { McpKnownStates } from './mcp-known-states.js';
import type { McpSessionUsage } from './mcp-session-usage.js';

/** How a connection reached the server: the kinds a workflow caller has. */
export type McpSessionKind = WorkflowCallerKind;

/** The identity of a connection's session-keyed instances. */
export interface McpSessionScope {
  scope: 'session' | 'attachment' | 'principal';
  id: string;
}

/**
 * One MCP connection: its SDK server, the key of its session-keyed instances, the
 * handle-keyed instances it started or used, and the menu it was last shown.
 */
export class McpSession implements WorkflowCaller {
  /**
   * Store keys of handle-keyed instances this session started or used. Changed only by
   * `ToolMenuService`, which keeps its index of the sessions following each instance in step.
   */
  readonly handles = new Set<string>();
  /** Last known state per store key, refreshed by `tools/list` and transitions. */
  readonly knownStates = new McpKnownStates();
  /** URIs this session subscribed to (`resources/subscribe`), by the store key of the instance they show; created by the first subscription. */
  subscriptions?: Map<string, Set<string>>;
  /**
   * What the session's caller holds, from its latest request (a session is bound to its
   * principal, not to one token: a step-up token brings more). Changed only by `ToolMenuService`.
   */
  grants: McpGrants = NO_GRANTS;
  /** Whether `grants` came from a request (this process may have rebuilt the session with none yet). */
  granted = false;
  /**
   * The position in the changes of instance states (`McpInstanceStates.epoch`) up to which
   * `knownStates` is up to date, and when the oldest of them was known (epoch ms); `undefined`
   * until they are first read. Changed only by `ToolMenuService`.
   */
  statesEpoch?: number;
  statesKnownAt?: number;
  /** The decision tools (`@McpApproval`) its menu shows for what waits, as of its last `tools/list`. Changed only by `ToolMenuService`. */
  decisions?: ReadonlySet<string>;
  /** Signature of the menu this session was last shown or told about. */
  lastMenu?: readonly string[];
  lastSeen = Date.now();
  /** The minimum level of log messages the client asked for with `logging/setLevel`. */
  logLevel?: LoggingLevel;
  /** What admission reads of a stateful HTTP session (set when it connects); none for other connections. */
  usage?: McpSessionUsage;
  /** GET streams of this session that this process serves now. */
  private openStreams = 0;
  /** When the last of them closed (epoch ms). */
  private streamClosedAt?: number;

  constructor(
    readonly kind: McpSessionKind,
    /** The connection's SDK server (2025 era); a 2026-07-28 request has none of its own. */
    readonly server: Server | undefined,
    /** `Mcp-Session-Id` of a stateful HTTP session. */
    readonly id: string | undefined,
    /**
     * Whose session-keyed instances this connection uses: its session's, the in-process
     * attachment's (stdio and single-tenant stateless), or none (`undefined`).
     */
    readonly scope: McpSessionScope | undefined,
    /** The principal (auth client id) that opened a stateful session; its requests must carry the same one. */
    readonly principal?: string,
  ) {}

  /** Store key of this session's instance of a session-keyed machine. */
  sessionStoreKey(machine: string): string | undefined {
    return this.scope && formatInstanceKey({ machine, ...this.scope });
  }

  touch(): void {
    this.lastSeen = Date.now();
  }

  /** Counts a GET stream of this session that this process serves, until the returned function runs. */
  openStream(): () => void {
    this.openStreams++;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      if (--this.openStreams === 0) this.streamClosedAt = Date.now();
    };
  }

  /**
   * Whether a message sent on the session's GET stream now may still reach its client through
   * this process: a stream is open here, or one closed less than `withinMs` ago (its client
   * may reconnect with `Last-Event-ID`).
   */
  hasStream(withinMs: number): boolean {
    return this.openStreams > 0 || (this.streamClosedAt !== undefined && Date.now() - this.streamClosedAt < withinMs);
  }
}

/** A 2025-era connection, with its SDK server. */
export type McpServedSession = McpSession & { readonly server: Server };
