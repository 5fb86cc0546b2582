import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpSessionRecord, McpSessionStore, McpStoredEvent } from './mcp-session-store.interface.js';

interface KeptEvent extends McpStoredEvent {
  /** Epoch ms when it was kept. */
  at: number;
}

/**
 * The default session store: the sessions of this process, in its memory. A restart ends
 * them all; replicas do not see each other's (use `TypeOrmMcpSessionStore` for that). Records
 * and messages are copied in and out, as a database store would, so no caller shares them.
 */
export class InMemoryMcpSessionStore implements McpSessionStore {
  private readonly sessions = new Map<string, McpSessionRecord>();
  /** Each session's kept events, oldest first. */
  private readonly events = new Map<string, KeptEvent[]>();
  /** Store keys each session follows, in the order it started following them. */
  private readonly followed = new Map<string, Set<string>>();
  /** Sessions that follow each store key, earliest followers first. */
  private readonly followersByKey = new Map<string, Set<string>>();
  private lastEventId = 0;

  /** @inheritdoc */
  async create(record: McpSessionRecord): Promise<void> {
    this.sessions.set(record.id, copyRecord(record));
  }

  /** @inheritdoc */
  async find(id: string): Promise<McpSessionRecord | undefined> {
    const record = this.sessions.get(id);
    return record && copyRecord(record);
  }

  /** @inheritdoc */
  async touch(id: string, at: number): Promise<boolean> {
    const record = this.sessions.get(id);
    if (record) record.lastSeenAt = at;
    return record !== undefined;
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    return this.end(id);
  }

  /** @inheritdoc */
  async expire(serverId: string, cutoff: number, limit: number): Promise<string[]> {
    return this.endWhere(limit, (record) => record.serverId === serverId && record.lastSeenAt < cutoff);
  }

  /** @inheritdoc */
  async expireUnused(serverId: string, cutoff: number, limit: number): Promise<string[]> {
    return this.endWhere(
      limit,
      (record) => record.serverId === serverId && record.lastSeenAt === record.createdAt && record.createdAt < cutoff,
    );
  }

  /** @inheritdoc */
  async appendEvent(sessionId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(++this.lastEventId);
    let kept = this.events.get(sessionId);
    if (!kept) this.events.set(sessionId, (kept = []));
    kept.push({ id, message: structuredClone(message), at: Date.now() });
    return id;
  }

  /** @inheritdoc */
  async eventsAfter(sessionId: string, eventId: string): Promise<McpStoredEvent[] | undefined> {
    const kept = this.events.get(sessionId) ?? [];
    const index = kept.findIndex((event) => event.id === eventId);
    if (index < 0) return undefined;
    return kept.slice(index + 1).map(({ id, message }) => ({ id, message: structuredClone(message) }));
  }

  /** Drops, session by session, the oldest events kept before `cutoff`, until `limit` are dropped. */
  async pruneEvents(cutoff: number, limit: number): Promise<number> {
    let pruned = 0;
    for (const [sessionId, kept] of this.events) {
      let old = 0;
      while (old < kept.length && kept[old].at < cutoff && pruned + old < limit) old++;
      kept.splice(0, old);
      pruned += old;
      if (kept.length === 0) this.events.delete(sessionId);
      if (pruned >= limit) break;
    }
    return pruned;
  }

  /** Ends at most `limit` sessions that match, without yielding, so that two concurrent calls never both return one. */
  private endWhere(limit: number, matches: (record: McpSessionRecord) => boolean): string[] {
    const ended: string[] = [];
    for (const record of this.sessions.values()) {
      if (ended.length >= limit) break;
      if (matches(record) && this.end(record.id)) ended.push(record.id);
    }
    return ended;
  }

  /** @inheritdoc */
  async follow(sessionId: string, storeKey: string): Promise<void> {
    if (!this.sessions.has(sessionId)) return;
    addTo(this.followed, sessionId, storeKey);
    addTo(this.followersByKey, storeKey, sessionId);
  }

  /** @inheritdoc */
  async unfollow(sessionId: string, storeKey: string): Promise<void> {
    deleteFrom(this.followed, sessionId, storeKey);
    deleteFrom(this.followersByKey, storeKey, sessionId);
  }

  /** @inheritdoc */
  async handles(sessionId: string): Promise<string[]> {
    return [...(this.followed.get(sessionId) ?? [])];
  }

  /** @inheritdoc */
  async countHandles(sessionId: string): Promise<number> {
    return this.followed.get(sessionId)?.size ?? 0;
  }

  /** @inheritdoc */
  async followers(storeKey: string, limit: number): Promise<string[]> {
    return [...(this.followersByKey.get(storeKey) ?? [])].slice(0, Math.max(0, limit));
  }

  private end(id: string): boolean {
    this.events.delete(id);
    for (const storeKey of this.followed.get(id) ?? []) deleteFrom(this.followersByKey, storeKey, id);
    this.followed.delete(id);
    return this.sessions.delete(id);
  }
}

function addTo(index: Map<string, Set<string>>, key: string, value: string): void {
  const values = index.get(key);
  if (values) values.add(value);
  else index.set(key, new Set([value]));
}

function deleteFrom(index: Map<string, Set<string>>, key: string, value: string): void {
  const values = index.get(key);
  if (values?.delete(value) && values.size === 0) index.delete(key);
}

/** A record that shares nothing with `record`, without a `principal` key when it has none. */
function copyRecord(record: McpSessionRecord): McpSessionRecord {
  const copy: McpSessionRecord = {
    id: record.id,
    serverId: record.serverId,
    initialize: structuredClone(record.initialize),
    createdAt: record.createdAt,
    lastSeenAt: record.lastSeenAt,
  };
  if (record.principal !== undefined) copy.principal = record.principal;
  return copy;
}
