import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { MCP_SESSION_OPTIONS, type McpResolvedSessionOptions } from '../sessions/session-options.interface.js';
import type { McpServedSession } from '../sessions/mcp-session.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';
import { SessionReplyTransport } from './session-reply.transport.js';
import { decideAdmission, type McpAdmissionView, type McpSessionLimitName, type McpSessionLimits } from './session-admission.policy.js';
import * as messages from './transports.messages.js';

/** A session refused by a live-session limit: HTTP 503 with `Retry-After`. */
export class McpSessionRefusal {
  constructor(
    readonly limit: McpSessionLimitName,
    readonly retryAfterSeconds: number,
    /** What the client reads. */
    readonly message: string,
  ) {}
}

/** The place an admitted session holds among the live ones while it opens; released once it is live (or failed). */
interface McpSessionSlot {
  release(): void;
}

/** A live session as the policy sees it, with the session itself when it is one that can be evicted. */
type View = McpAdmissionView & { session?: McpServedSession };

/**
 * Admits new and rebuilt stateful sessions under the `sessions` limits (see
 * `decideAdmission`): ends the sessions the policy evicts, and counts the sessions still
 * opening, so that concurrent `initialize` requests cannot overshoot a limit.
 */
@Injectable()
export class McpSessionAdmission {
  private readonly logger = new Logger('McpSessions');
  private readonly limits: McpSessionLimits;
  private readonly opening = new Set<McpAdmissionView>();
  /** The initial state of each session-keyed machine: a session whose instance is elsewhere holds workflow state. */
  private initialStates?: ReadonlyMap<string, string>;

  constructor(
    @Inject(MCP_SESSION_OPTIONS) options: McpResolvedSessionOptions,
    private readonly registry: McpSessionRegistry,
    private readonly machines: McpMachineRegistry,
  ) {
    this.limits = {
      maxSessions: options.maxSessions,
      maxPerAddress: options.maxPerAddress,
      maxPerPrincipal: options.maxPerPrincipal,
      idleTtlMs: options.idleTtlMs,
      unusedTtlMs: options.unusedTtlMs,
    };
  }

  /** A slot for a session of `principal` from `address`, evicting what the policy says; or the refusal to answer with. */
  admit(address: string, principal: string | undefined): McpSessionSlot | McpSessionRefusal {
    const now = Date.now();
    const decision = decideAdmission({ address, principal }, this.views(), this.limits, now);
    if (!decision.admitted) {
      const { limit, retryAfterSeconds } = decision;
      return new McpSessionRefusal(limit, retryAfterSeconds, messages.sessionLimitReached(limit, this.limits[limit], retryAfterSeconds));
    }
    for (const { session } of decision.evict) {
      const id = session!.id!;
      this.logger.log(messages.sessionEvicted(id, this.limits.maxSessions, now - session!.lastSeen, session!.usage!.used));
      void this.registry.evict(id);
    }
    const opening: McpAdmissionView = { address, principal, lastSeen: now, openedAt: now, used: false, busy: true, holds: false };
    this.opening.add(opening);
    return { release: () => this.opening.delete(opening) };
  }

  /** The live sessions and those still opening; only idle stateful HTTP sessions that hold nothing can be evicted. */
  private *views(): Generator<View> {
    for (const session of this.registry.sessions()) {
      const { usage } = session;
      yield usage
        ? {
            session,
            address: usage.address,
            principal: session.principal,
            lastSeen: session.lastSeen,
            openedAt: usage.openedAt,
            used: usage.used,
            busy: usage.busy,
            holds: this.holds(session),
          }
        : { lastSeen: session.lastSeen, openedAt: session.lastSeen, used: true, busy: true, holds: true };
    }
    yield* this.opening;
  }

  /**
   * Whether its client would lose something with the session: a handle it follows, its own
   * instance of a session-keyed machine out of the initial state, a GET stream open here, or
   * a request to its client that waits for an answer.
   */
  private holds(session: McpServedSession): boolean {
    if (session.handles.size > 0 || session.hasStream(0)) {
      return true;
    }
    const transport = session.server.transport;
    if (transport instanceof SessionReplyTransport && transport.requests.size > 0) {
      return true;
    }
    for (const [machine, initial] of this.initials()) {
      const state = session.knownStates.get(session.sessionStoreKey(machine) ?? '');
      if (state !== undefined && state !== initial) {
        return true;
      }
    }
    return false;
  }

  private initials(): ReadonlyMap<string, string> {
    this.initialStates ??= new Map(
      this.machines
        .ids()
        .filter((id) => !this.machines.machine(id).stateHandleKey)
        .map((id) => [id, this.machines.engine(id).initial().state]),
    );
    return this.initialStates;
  }
}
