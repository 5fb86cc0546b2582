import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { grantsSignature, type McpGrants } from '../access/access-requirement.js';
import { WorkflowWaitingRequests } from '../gating/workflow-waiting-requests.js';
import { WorkflowTransitionBus } from '../relays/workflow-transition.bus.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { MCP_STATE_CACHE_OPTIONS, type McpResolvedStateCacheOptions } from './state-cache-options.interface.js';

/** Readers whose decision tools are kept at once (with `stateCache`); the oldest go first. */
const MAX_KEPT_READERS = 1_000;
/** The waiting requests a menu reads at most, newest first. */
const MENU_READ_LIMIT = 100;

const NONE: ReadonlySet<string> = new Set();

/** The decision tools kept for one reader, and when they were read (epoch ms). */
interface Kept {
  readonly tools: ReadonlySet<string>;
  readonly at: number;
  /** The instances the read found waiting: a change of one of them drops it. */
  readonly keys: ReadonlySet<string>;
}

/**
 * The decision tools (`@McpApproval`'s approve and reject) a menu shows for what waits, not only
 * for instances the session follows: both tools while a request waits that the caller may decide
 * (the approvers' grants, an instance their access rule opens, not their own), the reject tool
 * while their own request waits (they may withdraw it). A session is read for only when it could
 * decide something (it holds some approvers' grants) or follows an instance in a waiting state;
 * the read is one list of the waiting requests open to it (one indexed query per machine with
 * `@McpApproval`). With `stateCache` on, what a reader may decide is kept until a request starts
 * or stops waiting (told by the transition bus, the relay's too) or `maxAgeMs` passed; off, every
 * list reads it again.
 */
@Injectable()
export class McpWaitingDecisions implements OnApplicationShutdown {
  private readonly kept = new Map<string, Kept>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly waiting: WorkflowWaitingRequests,
    private readonly store: FsmStoreAdapter,
    @Inject(MCP_STATE_CACHE_OPTIONS) private readonly options: McpResolvedStateCacheOptions,
    bus: WorkflowTransitionBus,
  ) {
    if (options.enabled) {
      this.unsubscribe.push(
        bus.subscribe(({ machine, storeKey, state }) => this.changed(machine, storeKey, state)),
        bus.onResync(() => this.kept.clear()),
      );
    }
  }

  onApplicationShutdown(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  /**
   * The decision tools to show a caller of `authInfo` holding `grants` for what waits now; none
   * for an anonymous caller, or one who could neither decide a request nor follows an instance in
   * a waiting state (`followed`: the states of the instances its session follows, by machine).
   */
  async of(
    authInfo: AuthInfo | undefined,
    grants: McpGrants,
    followed: ReadonlyMap<string, readonly string[]>,
  ): Promise<ReadonlySet<string>> {
    if (!authInfo?.clientId || !this.store.supports.waiting || !this.waiting.any()) return NONE;
    const waitingStates = this.waiting.waitingStates();
    const followsWaiting = [...followed].some(([machine, states]) => waitingStates.get(machine)?.some((state) => states.includes(state)));
    if (!followsWaiting && !this.waiting.decidesAny(grants)) return NONE;
    const key = `${authInfo.clientId}\n${JSON.stringify(authInfo.extra?.claims ?? null)}\n${grantsSignature(grants)}`;
    const kept = this.kept.get(key);
    if (kept && Date.now() - kept.at <= this.options.maxAgeMs) return kept.tools;
    const pending = await this.waiting.list({ authInfo, grants }, MENU_READ_LIMIT);
    const tools = new Set<string>();
    for (const request of pending) {
      if (request.mayDecide) tools.add(request.approve).add(request.reject);
      if (request.asked) tools.add(request.reject);
    }
    if (this.options.enabled)
      this.keep(key, {
        tools,
        at: Date.now(),
        keys: new Set(pending.map(({ machine, handle }) => formatInstanceKey({ machine, scope: 'handle', id: handle }))),
      });
    return tools;
  }

  private keep(key: string, kept: Kept): void {
    if (this.kept.size >= MAX_KEPT_READERS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, kept);
  }

  /** A stored change: one into a waiting state, or of an instance some reader found waiting, drops what was kept. */
  private changed(machine: string, storeKey: string, state: string | null): void {
    if (this.kept.size === 0) return;
    const into = state !== null && (this.waiting.waitingStates().get(machine)?.includes(state) ?? false);
    if (into || [...this.kept.values()].some((kept) => kept.keys.has(storeKey))) this.kept.clear();
  }
}
