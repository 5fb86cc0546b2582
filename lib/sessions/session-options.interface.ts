import type { IncomingMessage } from 'node:http';
import type { McpSessionStore } from '../stores/mcp-session-store.interface.js';

/** Where stateful HTTP sessions live, and their limits. */
export interface McpSessionOptions {
  /**
   * Where sessions are recorded at `initialize`. A store shared by several processes (for
   * example `new TypeOrmMcpSessionStore(dataSource)` from `nestjs-mcp-fsm/typeorm`) lets any
   * of them serve any session, across restarts and without sticky routing; its session-keyed
   * workflows survive restarts too.
   * @default an `InMemoryMcpSessionStore`: the sessions of this process, ended by a restart
   */
  store?: McpSessionStore;
  /**
   * A session no process has heard from for this long ends everywhere: its record, its kept
   * events and its session-keyed instances are deleted (also those of a process that crashed).
   * @default 1_800_000 (30 minutes)
   */
  idleTtlMs?: number;
  /**
   * How long a message sent on a session's GET stream is kept for a client that reconnects
   * with `Last-Event-ID` (on any process sharing `store`); `0` turns replay off. With replay
   * on, every POST response starts with an SSE priming event (2025-11-25), which costs a
   * little on each call.
   * @default 300_000 (5 minutes) when `store` is set, else 0 (off)
   */
  eventRetentionMs?: number;
  /**
   * A session that made no request since `initialize` (other than `notifications/initialized`;
   * opening its GET stream does not count either) ends everywhere after this long: its record
   * is deleted and its client gets HTTP 404 and re-initializes.
   * @default 30_000 (30 seconds)
   */
  unusedTtlMs?: number;
  /**
   * Live sessions of this process. At the limit, a new (or rebuilt) session takes the place of
   * the least recently used idle one, which ends everywhere (its client gets HTTP 404 and
   * re-initializes); only when every session is answering a request is it refused with HTTP
   * 503 and `Retry-After`.
   * @default 1000
   */
  maxSessions?: number;
  /**
   * Live sessions of this process one client address (see `clientAddress`) may hold; beyond,
   * its `initialize` gets HTTP 503 with `Retry-After` naming the option. `Infinity` turns it off.
   * @default a tenth of `maxSessions` (100), at least 1
   */
  maxPerAddress?: number;
  /**
   * Live sessions of this process one principal (auth client id) may hold; beyond, its
   * `initialize` gets HTTP 503 with `Retry-After` naming the option. `Infinity` turns it off.
   * @default a tenth of `maxSessions` (100), at least 1
   */
  maxPerPrincipal?: number;
  /**
   * Sessions of this process told of one instance's transitions (`list_changed`, and a kept
   * event when replay is on): the ones that followed it first. A session beyond them still
   * lists the instance's tools and is told in-band of its own calls, but not of other
   * sessions' transitions. A payment is followed by the conversations that started or looked
   * it up, a handful; the bound keeps anyone who holds a handle (an anonymous one is a bearer
   * capability) from making each of its transitions cost hundreds of notifications and
   * writes, or pushing its owner out.
   * @default 16
   */
  maxFollowersPerInstance?: number;
  /**
   * Requests to its client one session may have waiting for an answer at once: confirmations
   * (`@McpConfirm`), and a handler's own elicitations, sampling and roots requests. A request
   * over it is not sent: a confirmation is refused with CONFIRMATION_REQUIRED, a handler's own
   * request fails with an error naming this option. A client that never answers then holds
   * this many, not any number.
   * @default 8
   */
  maxPendingRequests?: number;
  /**
   * Sessions one client address may open per minute (a token bucket refilled over the
   * minute); an `initialize` beyond it gets HTTP 503 with `Retry-After`. Other addresses are
   * not affected. `Infinity` turns the limit off.
   * @default 60
   */
  maxNewPerMinutePerClient?: number;
  /**
   * The client address sessions are counted by. Behind a reverse proxy every request comes
   * from the proxy: return the address it forwards (from a header only your proxy sets).
   * @default the socket's remote address (an IPv6 address by its /64)
   */
  clientAddress?: (request: IncomingMessage) => string;
}

/** `transports.http.sessions` with every default filled in (also read by stdio's one session). */
export interface McpResolvedSessionOptions {
  store: McpSessionStore;
  idleTtlMs: number;
  unusedTtlMs: number;
  eventRetentionMs: number;
  maxSessions: number;
  maxPerAddress: number;
  maxPerPrincipal: number;
  maxFollowersPerInstance: number;
  maxPendingRequests: number;
  maxNewPerMinutePerClient: number;
  clientAddress: (request: IncomingMessage) => string;
}

/** Injection token of the {@link McpResolvedSessionOptions}. */
export const MCP_SESSION_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedSessionOptions');
