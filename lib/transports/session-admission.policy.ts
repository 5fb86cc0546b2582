/** The live-session limits a new session is admitted under (the `sessions` options). */
export interface McpSessionLimits {
  /** Live sessions of this process. */
  maxSessions: number;
  /** Live sessions of one client address. */
  maxPerAddress: number;
  /** Live sessions of one principal (auth client id). */
  maxPerPrincipal: number;
  /** How long a used session may be idle before it ends, in milliseconds. */
  idleTtlMs: number;
  /** How long a session may stay unused after `initialize`, in milliseconds. */
  unusedTtlMs: number;
}

/** Which limit refused a session: the name of its option under `sessions`. */
export type McpSessionLimitName = keyof Pick<McpSessionLimits, 'maxSessions' | 'maxPerAddress' | 'maxPerPrincipal'>;

/** What admission reads of one live (or opening) session. */
export interface McpAdmissionView {
  /** The client address it was opened or resumed from; `undefined` when it has none (stdio). */
  address?: string;
  /** The principal that opened it; `undefined` when anonymous. */
  principal?: string;
  /** Epoch ms of its last request. */
  lastSeen: number;
  /** Epoch ms of its `initialize`. */
  openedAt: number;
  /** Whether a request other than `initialize` and `notifications/initialized` reached it. */
  used: boolean;
  /** Answering a request now, still opening, or not a stateful HTTP session: never evicted. */
  busy: boolean;
  /**
   * Holds something its client would lose: workflow state (a session-keyed instance out of its
   * initial state, or a followed handle), a live GET stream, or a request to its client that
   * waits for an answer. Never evicted.
   */
  holds: boolean;
}

/** Who asks for a new session. */
interface McpAdmissionCandidate {
  address: string;
  principal?: string;
}

/** The outcome: admitted after the sessions in `evict` end, or refused by `limit`, with the seconds to wait. */
type McpAdmissionDecision<T extends McpAdmissionView> =
  { admitted: true; evict: T[] } | { admitted: false; limit: McpSessionLimitName; retryAfterSeconds: number };

/** What a client is told to wait when no session in its way can be evicted: calls end within seconds, mostly. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Decides whether `candidate` gets a new session among `sessions`. An address or a principal
 * that already holds its limit is refused (its own sessions are its business, never evicted
 * for it). At `maxSessions`, room is made by evicting, in this order: sessions that never did
 * anything after `initialize` (oldest first), then used sessions that hold nothing (least
 * recently used first). A session that is busy or {@link McpAdmissionView.holds holds} work is
 * never evicted: when those fill the room, the candidate is refused. Pure: the caller ends the
 * evicted sessions.
 */
export function decideAdmission<T extends McpAdmissionView>(
  candidate: McpAdmissionCandidate,
  sessions: Iterable<T>,
  limits: McpSessionLimits,
  now: number,
): McpAdmissionDecision<T> {
  const all = [...sessions];
  const ofAddress = all.filter((session) => session.address === candidate.address);
  if (ofAddress.length >= limits.maxPerAddress) {
    return { admitted: false, limit: 'maxPerAddress', retryAfterSeconds: secondsUntilOneEnds(ofAddress, limits, now) };
  }
  if (candidate.principal !== undefined) {
    const ofPrincipal = all.filter((session) => session.principal === candidate.principal);
    if (ofPrincipal.length >= limits.maxPerPrincipal) {
      return { admitted: false, limit: 'maxPerPrincipal', retryAfterSeconds: secondsUntilOneEnds(ofPrincipal, limits, now) };
    }
  }
  const excess = all.length + 1 - limits.maxSessions;
  if (excess <= 0) {
    return { admitted: true, evict: [] };
  }
  const evictable = all.filter((session) => !session.busy && !session.holds);
  const unused = evictable.filter((session) => !session.used).sort((a, b) => a.openedAt - b.openedAt);
  const idle = evictable.filter((session) => session.used).sort((a, b) => a.lastSeen - b.lastSeen);
  const order = [...unused, ...idle];
  if (order.length < excess) {
    return { admitted: false, limit: 'maxSessions', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
  }
  return { admitted: true, evict: order.slice(0, excess) };
}

/** Whole seconds (at least 1) until the first idle one of `sessions` ends by itself: unused ones after `unusedTtlMs`, used ones after `idleTtlMs`. */
function secondsUntilOneEnds(sessions: readonly McpAdmissionView[], limits: McpSessionLimits, now: number): number {
  const ends = sessions
    .filter((session) => !session.busy)
    .map((session) => (session.used ? session.lastSeen + limits.idleTtlMs : session.openedAt + limits.unusedTtlMs));
  if (ends.length === 0) {
    return BUSY_RETRY_AFTER_SECONDS;
  }
  return Math.max(1, Math.ceil((Math.min(...ends) - now) / 1000));
}
