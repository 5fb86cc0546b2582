import type { WorkflowSettlement } from './workflow-step-values.js';
import type { WorkflowCall } from './workflow-call.js';

/**
 * What the gate tells of a call as it runs it, for telemetry: the claim and the commit are
 * run through it (so each can be timed), and it learns how the call ended. The module's
 * telemetry provides it; the default runs the work and records nothing.
 */
export interface WorkflowGateObserver {
  /** Runs the claim of the call's instance. */
  claim<T>(call: WorkflowCall, work: () => Promise<T>): Promise<T>;
  /** Runs the commit of the call's transition (or the creation of a started instance). */
  commit<T>(call: WorkflowCall, work: () => Promise<T>): Promise<T>;
  /** The gate is done with the call: `settlement` says whether it was refused, committed, asked the client, or neither. */
  settled(call: WorkflowCall, settlement: WorkflowSettlement): void;
}

/** Injection token of the {@link WorkflowGateObserver} the gate reports to. */
export const WORKFLOW_GATE_OBSERVER = Symbol.for('nestjs-mcp-fsm:WorkflowGateObserver');

/** Runs the work, records nothing: the gate's observer when none is provided. */
export const SILENT_GATE_OBSERVER: WorkflowGateObserver = {
  claim: (_call, work) => work(),
  commit: (_call, work) => work(),
  settled: () => undefined,
};
