import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpSessionStore } from '../stores/mcp-session-store.interface.js';
import type { WorkflowCaller } from '../gating/workflow-call.js';
import type { WorkflowStartFollows } from '../gating/workflow-start-follows.interface.js';
import type { FsmTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import { McpSession } from './mcp-session.js';
import * as messages from './sessions.messages.js';

/**
 * Keeps the handles a stateful session follows with its record in the session store, so that
 * every process serving the session (another replica, this one after a restart) lists the
 * same tools and tells it of the same transitions. Other connections (stdio, stateless, one
 * 2026-07-28 request) have no record: their handles live with the connection. A store that
 * fails is logged, never thrown: the process that saw the change still follows the handle,
 * and the others learn it when the session uses the handle again. The one exception is a
 * following written inside a start's transaction ({@link within}): its error rolls the start back.
 */
@Injectable()
export class McpSessionFollows implements WorkflowStartFollows {
  private readonly logger = new Logger('McpSessions');

  constructor(@Inject(McpSessionStore) private readonly store: McpSessionStore) {}

  /** Records that the session started (`following`) or stopped following instance `storeKey`. */
  async record(session: McpSession, storeKey: string, following: boolean): Promise<void> {
    const id = recordId(session);
    if (id === undefined) return;
    try {
      await (following ? this.store.follow(id, storeKey) : this.store.unfollow(id, storeKey));
    } catch (error) {
      this.logger.warn(messages.followsNotStored(id, error));
    }
  }

  /**
   * Writes, in the transaction that starts instance `storeKey`, that the calling session follows
   * it, when the caller is a session with a record and the session store can write in that
   * transaction (the same database); `false` otherwise, and {@link record} stores it after the commit.
   */
  async within(caller: WorkflowCaller, storeKey: string, transaction: FsmTransaction): Promise<boolean> {
    const id = caller instanceof McpSession ? recordId(caller) : undefined;
    if (id === undefined || !this.store.followWithin) return false;
    return this.store.followWithin(transaction, id, storeKey);
  }

  /** The instances the session follows as its record says; `undefined` without a record, or when the store failed (logged). */
  async stored(session: McpSession): Promise<string[] | undefined> {
    const id = recordId(session);
    if (id === undefined) return undefined;
    try {
      return await this.store.handles(id);
    } catch (error) {
      this.logger.warn(messages.followsNotRead(id, error));
      return undefined;
    }
  }

  /**
   * Whether the session's record may follow handles this process does not know the session
   * follows (it started following them on another process): the count of its stored handles
   * differs from `known`, or the store cannot count them. `false` without a record, or when the
   * store failed (logged: the handles known here are listed).
   */
  async differs(session: McpSession, known: number): Promise<boolean> {
    const id = recordId(session);
    if (id === undefined) return false;
    if (!this.store.countHandles) return true;
    try {
      return (await this.store.countHandles(id)) !== known;
    } catch (error) {
      this.logger.warn(messages.followsNotRead(id, error));
      return false;
    }
  }

  /** Ids of at most `limit` sessions that follow instance `storeKey`, earliest followers first; none when the store failed (logged). */
  async followers(storeKey: string, limit: number): Promise<string[]> {
    try {
      return await this.store.followers(storeKey, limit);
    } catch (error) {
      this.logger.warn(messages.followersNotRead(error));
      return [];
    }
  }
}

/** The id of the session's record in the session store: stateful HTTP sessions have one. */
function recordId(session: McpSession): string | undefined {
  return session.kind === 'stateful' ? session.id : undefined;
}
