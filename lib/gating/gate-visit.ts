import type {
  McpCallResult,
  WorkflowAdmission,
  WorkflowCallWaiting,
  WorkflowDecision,
  WorkflowSettlement,
} from './workflow-step-values.js';

/** What the gate reports of a call it entered, once it is done with it: what its observer was told, and the result it built. */
export interface GateReport {
  readonly settlement: WorkflowSettlement;
  /** The call's result, when the gate built it and nothing of the app's pipeline runs outside the gate. */
  readonly result?: McpCallResult;
  /** Fields the result gets besides the handler's own (the minted handle of a start tool). */
  readonly extra: Record<string, unknown>;
  /** How the call waits for a second person's approval, when it does. */
  readonly waiting?: WorkflowCallWaiting;
}

/** A call the gate admitted: its admission, and how it decides with the piped arguments (once). */
export interface AdmittedCall {
  readonly admission: WorkflowAdmission;
  readonly decide: (input: Record<string, unknown> | undefined) => Promise<WorkflowDecision | undefined>;
}

/**
 * The gate's visit of one call: made by `WorkflowGate.run` with the call, which carries it
 * through the handler's pipeline (where no value of the gate can be handed on) and back. It
 * holds the admitted call while the gate is at it (where the method's stand-in decides among
 * the app's interceptors, and what `McpWorkflowService.end` asks), whether the handler ended
 * its own instance, and the gate's report, written once when the gate is done with the call.
 */
export class GateVisit {
  private current?: AdmittedCall;
  private ownEnd = false;
  private done?: GateReport;

  /** The call is admitted: from now until the gate settles it, {@link admitted} answers it. */
  admit(admitted: AdmittedCall): void {
    this.current = admitted;
  }

  /** The admitted call, while the gate is at it; `undefined` before its admission and once it settled. */
  get admitted(): AdmittedCall | undefined {
    return this.current;
  }

  /** The handler ended its own instance (`McpWorkflowService.end`): the call's outcome stores the end. */
  endOwn(): void {
    this.ownEnd = true;
  }

  /** Whether the handler ended its own instance. */
  get endedOwn(): boolean {
    return this.ownEnd;
  }

  /** The gate is done with the call: keeps its report; the call is no longer admitted. */
  settle(report: GateReport): void {
    this.current = undefined;
    this.done = report;
  }

  /** What the gate reported of the call, once it is done with it; `undefined` while it is at it, or never entered it. */
  get report(): GateReport | undefined {
    return this.done;
  }
}
