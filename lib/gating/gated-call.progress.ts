import { buildCallResult } from '../results/call-result.builder.js';
import { isInputRequired } from '../results/input-required.result.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type {
  McpCallResult,
  WorkflowAdmission,
  WorkflowCallOutcome,
  WorkflowDecision,
  WorkflowHold,
  WorkflowInstanceRef,
  WorkflowSettlement,
  WorkflowStored,
} from './workflow-call-outcome.js';
import type { WorkflowCall } from './workflow-call.js';
import * as messages from './gating.messages.js';
import { WorkflowRefusal } from './workflow-refusal.error.js';

const NOTHING_HELD: WorkflowHold = { kind: 'none' };

/**
 * The gate's progress through one call it entered, from its first step to the outcome: what it
 * saw of the instance, what it holds, what it decided and stored. Only the gate moves it on
 * (each step once, in order); what leaves it is the settlement its observer reads and the
 * immutable outcome the call answers. Never handed to the app or the protocol layer.
 */
export class GatedCallProgress {
  private seen?: { instance: WorkflowInstanceRef; snapshot: WorkflowSnapshot };
  private admission?: WorkflowAdmission;
  private decision?: Promise<WorkflowDecision | undefined>;
  private stored?: WorkflowStored;
  private refusal?: WorkflowRefusal;
  private asking = false;
  private committed = false;
  /** The call's result, when the gate built it and nothing of the app's pipeline runs outside the gate. */
  private result?: McpCallResult;
  private settlement?: WorkflowSettlement;

  constructor(
    readonly call: WorkflowCall,
    /** Decides the admitted call's transition with the piped arguments. */
    private readonly decider: (admission: WorkflowAdmission, input: Record<string, unknown>) => Promise<WorkflowDecision | undefined>,
  ) {}

  /** The instance the gate found, in a state the machine knows (before it was judged: a refusal still names it). */
  saw(instance: WorkflowInstanceRef, snapshot: WorkflowSnapshot): void {
    this.seen = { instance, snapshot };
  }

  /** The call is admitted on `admission`. */
  admitted(admission: WorkflowAdmission): void {
    this.admission = admission;
    this.seen = { instance: admission.instance, snapshot: admission.snapshot };
  }

  /** What the call holds, to let go of at its end (nothing once its commit took it). */
  get hold(): WorkflowHold {
    return this.admission && !this.committed ? this.admission.hold : NOTHING_HELD;
  }

  /** The handle of a start tool's new instance, once minted (a refusal of its store names it). */
  get handle(): string | undefined {
    return this.call.tool.role.kind === 'start' ? this.seen?.instance.handle : undefined;
  }

  /** The commit begins: it takes what the call holds (it stores the change, or lets go itself). Answers the admission. */
  committing(): WorkflowAdmission {
    if (!this.admission) {
      throw new Error(messages.commitWithoutAdmission(this.call.tool.name));
    }
    this.committed = true;
    return this.admission;
  }

  /** Decides with the piped arguments (once: the first input counts); a call not admitted decides nothing. */
  decideWith(input: Record<string, unknown>): Promise<WorkflowDecision | undefined> {
    if (!this.decision && this.admission) {
      this.decision = this.decider(this.admission, input);
    }
    return this.decision ?? Promise.resolve(undefined);
  }

  /** Where the call leads, once decided (`undefined`: a read, or nothing decided). */
  decided(): Promise<WorkflowDecision | undefined> {
    return this.decision ?? Promise.resolve(undefined);
  }

  /** Fields the result gets besides the handler's own: the minted handle of a start tool. */
  resultExtra(): Record<string, unknown> {
    const { role } = this.call.tool;
    const handle = this.admission?.instance.handle;
    return role.kind === 'start' && handle ? { [role.handleKey]: handle } : {};
  }

  /** The handler ended the instance with `storeKey`; answers whether it is the call's own. */
  ended(storeKey: string): boolean {
    const own = this.seen?.instance.storeKey === storeKey;
    if (own) {
      this.stored = { state: null };
    }
    return own;
  }

  /** The gate answers `value`: with the result it built (`final`), and what it stored, if anything. */
  answer(value: unknown, result?: McpCallResult, stored?: WorkflowStored): unknown {
    this.asking = isInputRequired(value);
    this.result = result;
    this.stored = stored ?? this.stored;
    return value;
  }

  /** A step of the gate threw `error` (answered back, to throw): a refusal is kept, so that no filter of the app can turn it into an answer. */
  threw(error: unknown): unknown {
    if (error instanceof WorkflowRefusal) {
      this.refusal = error;
    }
    return error;
  }

  /** The gate is done with the call: what its observer reads. */
  settle(): WorkflowSettlement {
    this.settlement = {
      instance: this.seen?.instance,
      admitted: this.seen?.snapshot,
      stored: this.stored,
      refusal: this.refusal,
      abandoned: this.call.abandoned,
      asking: this.asking,
    };
    return this.settlement;
  }

  /** The outcome of the call whose pipeline answered `value`: the gate's refusal wins (a filter of the app may have swallowed it). */
  answered(value: unknown): WorkflowCallOutcome {
    const effects = this.effects();
    if (this.refusal) {
      return { ...effects, status: 'failed', error: this.refusal, refusal: this.refusal };
    }
    if (isInputRequired(value)) {
      return { ...effects, status: 'asking', question: value };
    }
    try {
      return { ...effects, status: 'answered', result: this.result ?? buildCallResult(this.call, value, this.resultExtra()) };
    } catch (error) {
      return { ...effects, status: 'failed', error };
    }
  }

  /** The outcome of the call whose pipeline threw `error`: the gate's refusal wins (whatever the app's filters made of it). */
  failed(error: unknown): WorkflowCallOutcome {
    const refusal = this.refusal;
    return refusal ? { ...this.effects(), status: 'failed', error: refusal, refusal } : { ...this.effects(), status: 'failed', error };
  }

  /** What the outcome tells of the instance; nothing while the gate is still at the call (abandoned at shutdown). */
  private effects() {
    const settled = this.settlement;
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
