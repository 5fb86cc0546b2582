import type { FsmStateStore } from './fsm-state-store.interface.js';

/**
 * One refused or declined call of an instance: who tried which tool, what the refusal said
 * (its code and its message), with which arguments, when. The arguments are kept cut, as error
 * texts repeat client values (`echoArguments`): a row stays bounded whatever the caller sent.
 */
export interface WorkflowAttemptRecord {
  /** Machine id. */
  machine: string;
  /** Store key of the instance. */
  key: string;
  /** The tool that was called. */
  tool: string;
  /** The refusal code (`FORBIDDEN`, `DECLINED`, `INSUFFICIENT_SCOPE`, ...). */
  code: string;
  /** Auth client id of the caller; `null` for an anonymous one (a session id is never written here). */
  principal: string | null;
  /** ISO-8601 time of the call. */
  at: string;
  /** The refusal's message, as the caller read it (cut to `MAX_ATTEMPT_MESSAGE_LENGTH` characters); absent on rows written before 0.5. */
  message?: string;
  /**
   * The call's arguments (as its tool took them, after the input schema, when the gate refused
   * it; as sent, when it was refused for a missing scope or role), cut (`echoArguments`: at most
   * `MAX_ECHOED_ARGUMENTS` of them, each string cut to `MAX_ECHO_LENGTH` characters, nested values
   * as cut JSON text); absent on rows written before 0.5.
   */
  args?: Record<string, unknown>;
}

/**
 * Where a store keeps the refused and declined calls of its instances, for operators (the
 * workflow console). Optional: a store without it gates every call, and the console shows no
 * attempts. Both shipped stores implement it (turned on by their `attempts` option).
 */
export interface FsmAttemptLog {
  /**
   * Records `attempt` when an instance with key `attempt.key` exists and `caller` may see it
   * (it has no owner, `caller` is its owner, or `team` is the team its starter had); keeps the most recent ones per instance (the
   * store's bound) and drops older ones. Answers whether it recorded it. Nothing is written
   * for a key no instance has: a forged handle leaves no row.
   */
  recordAttempt(attempt: WorkflowAttemptRecord, caller: string | undefined, team?: string): Promise<boolean>;
  /** The most recent `limit` attempts of one instance, oldest first. */
  recentAttempts(key: string, limit: number): Promise<WorkflowAttemptRecord[]>;
}

/** Whether `store` implements {@link FsmAttemptLog} and keeps attempts. */
export function isWorkflowAttemptLog(store: FsmStateStore): store is FsmStateStore & FsmAttemptLog {
  const candidate = store as Partial<FsmAttemptLog> & { keepsAttempts?: boolean };
  return (
    typeof candidate.recordAttempt === 'function' && typeof candidate.recentAttempts === 'function' && candidate.keepsAttempts !== false
  );
}
