import type { MachineState } from '../machines/machine-engine.interface.js';
import type { FsmInstanceScope } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { FsmInstanceLock } from '../stores/locks/fsm-instance-lock.interface.js';
import type { WorkflowTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import type { WorkflowRefusal } from './workflow-refusal.error.js';

/** Which stored instance a call acts on. */
export interface WorkflowInstanceRef {
  machine: string;
  /** Key in the store (see `formatInstanceKey`). */
  storeKey: string;
  scope: FsmInstanceScope;
  /** The handle argument (handle-keyed machines), or the minted handle of a start tool. */
  handle?: string;
}

/**
 * What the gate decided about one call, as the protocol layer reads it once the Nest
 * pipeline returned (and as a gate subclass reads it in its hooks). Only the gate writes it.
 */
export interface WorkflowCallOutcome {
  /** The instance the call acts on, once resolved and found to be the caller's. */
  readonly instance: WorkflowInstanceRef | undefined;
  /** The instance as the call was admitted on it. */
  readonly admitted: WorkflowSnapshot | undefined;
  /** The state this call stored (`null`: its handler ended the instance); `undefined` while it stored nothing. */
  readonly storedState: string | null | undefined;
  /**
   * The gate's refusal, kept here as well as thrown: a user's catch-all exception filter may
   * swallow the thrown one, but the call is refused all the same.
   */
  readonly refusal: WorkflowRefusal | undefined;
  /** The state the call leaves its instance in: the stored one (`null`: ended), else the one it was admitted on. */
  readonly state: string | null | undefined;
  /** Whether the call stored a change of its instance (a transition, a start or an end). */
  changedInstance(): boolean;
  /** The result the gate built from `value` before storing the transition; `undefined` for any other value. */
  resultFor(value: unknown): unknown;
}

/** The gate's record of one call: the {@link WorkflowCallOutcome} it writes, and what it holds while the call runs. */
export class FsmCallRecord implements WorkflowCallOutcome {
  instance: WorkflowInstanceRef | undefined;
  admitted: WorkflowSnapshot | undefined;
  storedState: string | null | undefined;
  refusal: WorkflowRefusal | undefined;
  /** Where the bound transition leads, computed before the handler ran. */
  next: MachineState | undefined;
  /** Lock held between admission and commit (transition tools). */
  lock: FsmInstanceLock | undefined;
  /** Transaction a transactional start tool creates its instance in. */
  transaction: WorkflowTransaction | undefined;
  /** The version (`updatedAt`, `null`: not stored yet) of the instance a person confirmed the call on (`@McpConfirm`). */
  confirmedVersion: string | null | undefined;
  private built?: { value: unknown; result: unknown };

  get state(): string | null | undefined {
    return this.storedState !== undefined ? this.storedState : this.admitted?.state;
  }

  changedInstance(): boolean {
    return this.storedState !== undefined;
  }

  resultFor(value: unknown): unknown {
    return this.built && this.built.value === value ? this.built.result : undefined;
  }

  /** Keeps the result built from the handler's `value`. */
  keepResult(value: unknown, result: unknown): void {
    this.built = { value, result };
  }
}
