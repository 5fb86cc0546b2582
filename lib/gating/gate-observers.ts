import type { WorkflowCall } from './workflow-call.js';
import type { WorkflowGateObserver } from './workflow-gate-observer.interface.js';

/**
 * One observer that tells each of `observers` what the gate tells it: the claim and the commit
 * run inside all of them (the first outermost), and each learns how the call ended, in order.
 */
export function composeGateObservers(...observers: readonly WorkflowGateObserver[]): WorkflowGateObserver {
  const around =
    (step: 'claim' | 'commit') =>
    <T>(call: WorkflowCall, work: () => Promise<T>): Promise<T> =>
      observers.reduceRight<() => Promise<T>>((inner, observer) => () => observer[step](call, inner), work)();
  return {
    claim: around('claim'),
    commit: around('commit'),
    settled: (call, settlement) => {
      for (const observer of observers) observer.settled(call, settlement);
    },
  };
}
