import { buildCallResult } from '../results/call-result.builder.js';
import { isInputRequired } from '../results/input-required.result.js';
import type {
  McpCallResult,
  WorkflowAdmission,
  WorkflowCallOutcome,
  WorkflowCallWaiting,
  WorkflowDecision,
  WorkflowHold,
  WorkflowSettlement,
  WorkflowSighting,
  WorkflowStored,
} from './workflow-call-outcome.js';
import type { WorkflowCall } from './workflow-call.js';
import type { WorkflowRefusal } from './workflow-refusal.error.js';

/** What a call that holds nothing holds. */
export const NOTHING_HELD: WorkflowHold = { kind: 'none' };

/** How the gate's part of a call ended: what it stored, its refusal (with the instance it found), the result it built, or that it asked. */
export interface GatedCallEnd {
  readonly stored?: WorkflowStored;
  readonly refusal?: WorkflowRefusal;
  readonly seen?: WorkflowSighting;
  readonly asking?: boolean;
  /** The call's result, when the gate built it and nothing of the app's pipeline runs outside the gate. */
  readonly result?: McpCallResult;
  /** How the call waits for a second person's approval, when it does. */
  readonly waiting?: WorkflowCallWaiting;
}

const ENDED: WorkflowStored = { state: null };

/**
 * What the gate shares of one call it entered between the pipeline's positions: the admission
 * the method's stand-in decides on, the decision it hands back, whether the handler ended the
 * call's own instance, and at the end the settlement. The gate alone writes it, each part once;
 * what leaves it is the settlement its observer reads and the immutable outcome the call answers.
 */
export class GatedCallProgress {
  private admission?: WorkflowAdmission;
  private decision?: Promise<WorkflowDecision | undefined>;
  private endedOwn = false;
  private end?: { settlement: WorkflowSettlement; result?: McpCallResult; waiting?: WorkflowCallWaiting };

  constructor(
    readonly call: WorkflowCall,
    /** Decides the admitted call's transition with the piped arguments. */
    private readonly decider: (admission: WorkflowAdmission, input: Record<string, unknown>) => Promise<WorkflowDecision | undefined>,
  ) {}

  /** The call is admitted on `admission`. */
  admitted(admission: WorkflowAdmission): void {
    this.admission = admission;
  }

  /** Decides with the piped arguments (once: the first input counts); a call not admitted decides nothing. */
  decideWith(input: Record<string, unknown>): Promise<WorkflowDecision | undefined> {
    if (!this.decision && this.admission) {
      this.decision = this.decider(this.admission, input);
    }
    return this.decided();
  }

  /** Where the call leads, once decided (`undefined`: a read, or nothing decided). */
  decided(): Promise<WorkflowDecision | undefined> {
    return this.decision ?? Promise.resolve(undefined);
  }

  /** The handler ended the instance with `storeKey`; answers whether it is the call's own. */
  ended(storeKey: string): boolean {
    const own = this.admission?.instance.storeKey === storeKey;
    this.endedOwn ||= own;
    return own;
  }

  /** The gate is done with the call, having found `seen` and ended as `end`: what its observer reads. */
  settle(seen: WorkflowSighting | undefined, end: GatedCallEnd): WorkflowSettlement {
    const settlement: WorkflowSettlement = {
      instance: seen?.instance,
      admitted: seen?.snapshot,
      stored: end.stored ?? (this.endedOwn ? ENDED : undefined),
      refusal: end.refusal,
      abandoned: this.call.abandoned,
      asking: end.asking ?? false,
    };
    this.end = { settlement, result: end.result, waiting: end.waiting };
    return settlement;
  }

  /** The outcome of the call whose pipeline answered `value`: the gate's refusal wins (a filter of the app may have swallowed it). */
  answered(value: unknown): WorkflowCallOutcome {
    const effects = this.effects();
    const refusal = this.end?.settlement.refusal;
    if (refusal) {
      return { ...effects, status: 'failed', error: refusal, refusal };
    }
    if (isInputRequired(value)) {
      return { ...effects, status: 'asking', question: value };
    }
    try {
      const result = this.end?.result ?? buildCallResult(this.call, value, this.resultExtra());
      const waiting = this.end?.waiting;
      return { ...effects, status: 'answered', result, ...(waiting && { waiting }) };
    } catch (error) {
      return { ...effects, status: 'failed', error };
    }
  }

  /** The outcome of the call whose pipeline threw `error`: the gate's refusal wins (whatever the app's filters made of it). */
  failed(error: unknown): WorkflowCallOutcome {
    const refusal = this.end?.settlement.refusal;
    return refusal ? { ...this.effects(), status: 'failed', error: refusal, refusal } : { ...this.effects(), status: 'failed', error };
  }

  /** Fields the result gets besides the handler's own: the minted handle of a start tool. */
  private resultExtra(): Record<string, unknown> {
    const { role } = this.call.tool;
    const handle = this.admission?.instance.handle;
    return role.kind === 'start' && handle ? { [role.handleKey]: handle } : {};
  }

  /** What the outcome tells of the instance; nothing while the gate is still at the call (abandoned at shutdown). */
  private effects() {
    const settled = this.end?.settlement;
    const stored = settled?.stored;
    return {
      call: this.call,
      instance: settled?.instance,
      admitted: settled?.admitted,
      stored,
      state: stored ? stored.state : settled?.admitted?.state,
    };
  }
}

/** The outcome of a call no gate ran (its handler has no workflow role): the result of `value`, or the question it asks. */
export function ungatedOutcome(call: WorkflowCall, value: unknown): WorkflowCallOutcome {
  const effects = { call, state: undefined };
  if (isInputRequired(value)) {
    return { ...effects, status: 'asking', question: value };
  }
  try {
    return { ...effects, status: 'answered', result: buildCallResult(call, value, {}) };
  } catch (error) {
    return { ...effects, status: 'failed', error };
  }
}
