import type { McpSession } from './mcp-session.js';

const NO_FOLLOWERS: ReadonlySet<McpSession> = new Set();

/**
 * Which indexed sessions follow each instance, by store key, so a transition reaches the
 * sessions that show its instance without visiting every live session. A session follows
 * its own session-keyed instances (several sessions may share an attachment's) and the
 * handle-keyed instances it started or used. Only sessions given to `add` are indexed:
 * `follow` and `unfollow` ignore the others (stateless connections, which live for one
 * request), so they never accumulate here.
 *
 * An instance has at most `maxFollowers` indexed followers: the ones that followed it first.
 * A newcomer beyond them is not indexed for it (its lists still show the instance; only the
 * notifications of other sessions' transitions skip it), so whoever holds a handle cannot make
 * its owner's transitions cost more than `maxFollowers` notifications here, nor push the owner
 * out.
 */
export class McpInstanceFollowers {
  private readonly sessionsByKey = new Map<string, Set<McpSession>>();
  private readonly keysBySession = new Map<McpSession, Set<string>>();
  /** Instances a session could not be indexed for (they had `maxFollowers` already), until they have no follower left. */
  private readonly full = new Set<string>();

  constructor(private readonly maxFollowers = Infinity) {}

  /** Indexes `session` under the store keys of the instances it follows now. */
  add(session: McpSession, keys: Iterable<string>): void {
    this.remove(session);
    this.keysBySession.set(session, new Set());
    for (const key of keys) {
      this.follow(session, key);
    }
  }

  /** Forgets `session` and every instance it followed. */
  remove(session: McpSession): void {
    const keys = this.keysBySession.get(session);
    if (!keys) {
      return;
    }
    for (const key of keys) {
      this.dropFollower(key, session);
    }
    this.keysBySession.delete(session);
  }

  /**
   * Records that an indexed session now follows instance `key`; `false` when it is not indexed
   * for it (a session not indexed, or an instance with `maxFollowers` followers already).
   */
  follow(session: McpSession, key: string): boolean {
    const keys = this.keysBySession.get(session);
    if (!keys) {
      return false;
    }
    if (keys.has(key)) {
      return true;
    }
    const sessions = this.sessionsByKey.get(key);
    if ((sessions?.size ?? 0) >= this.maxFollowers) {
      this.full.add(key);
      return false;
    }
    keys.add(key);
    if (sessions) {
      sessions.add(session);
    } else {
      this.sessionsByKey.set(key, new Set([session]));
    }
    return true;
  }

  /** Records that an indexed session no longer follows instance `key`. */
  unfollow(session: McpSession, key: string): void {
    if (this.keysBySession.get(session)?.delete(key)) {
      this.dropFollower(key, session);
    }
  }

  /** Whether a session that follows instance `key` may be missing here: one was left out by the bound since it last had no follower. */
  leftOut(key: string): boolean {
    return this.full.has(key);
  }

  /** The indexed sessions that follow instance `key`. */
  followers(key: string): ReadonlySet<McpSession> {
    return this.sessionsByKey.get(key) ?? NO_FOLLOWERS;
  }

  private dropFollower(key: string, session: McpSession): void {
    const sessions = this.sessionsByKey.get(key);
    sessions?.delete(session);
    if (sessions?.size === 0) {
      this.sessionsByKey.delete(key);
      this.full.delete(key);
    }
  }
}
