import type { WorkflowSighting } from './workflow-step-values.js';
import type { WaitingNow } from './gating.messages.js';

/** Why a step of the gate refuses a call: what the refusal the model reads is made of (see `WorkflowRefusals.of`). */
export type WorkflowDenialReason =
  | { readonly code: 'FORBIDDEN' | 'BUSY' | 'UNKNOWN_STATE'; readonly machine: string; readonly state: string }
  | {
      readonly code: 'GUARD_REJECTED';
      readonly machine: string;
      readonly state: string;
      readonly event: string;
      readonly guards: readonly string[];
      /** Why, for the guards that give a reason (`guardReasons`). */
      readonly reasons?: readonly string[];
    }
  | { readonly code: 'UNKNOWN_HANDLE'; readonly machine: string; readonly key: string; readonly handle: unknown }
  | { readonly code: 'NO_SESSION'; readonly machine: string }
  | { readonly code: 'LEASE_EXPIRED'; readonly machine: string; readonly state: string; readonly leaseMs: number }
  | { readonly code: 'DECLINED'; readonly machine: string; readonly state: string; readonly why: string }
  | { readonly code: 'CONFIRMATION_REQUIRED'; readonly machine: string; readonly state: string | null; readonly why: string }
  | {
      readonly code: 'SELF_APPROVAL';
      readonly machine: string;
      readonly state: string;
      readonly requestedBy: string | null;
      /** The caller is anonymous, so cannot be told from whoever asked. */
      readonly anonymous: boolean;
    }
  | {
      readonly code: 'STALE_REQUEST';
      readonly machine: string;
      readonly state: string;
      /** The request the call named (`undefined`: none). */
      readonly named?: string;
      /** The request of the decided tool that waits now, if any. */
      readonly now?: WaitingNow;
    }
  | {
      readonly code: 'NOT_APPROVER';
      readonly machine: string;
      readonly state: string;
      /** The approvers' scopes and roles the caller lacks. */
      readonly approvers: readonly string[];
      readonly requestedBy: string | null;
      /** Whether the call could have withdrawn the request, had its caller asked for it (a reject tool). */
      readonly withdraws: boolean;
    };

/**
 * A step of the gate refusing the call: thrown with its reason, and made into the call's
 * `WorkflowRefusal` once, where it leaves the gate's steps.
 */
export class WorkflowDenial extends Error {
  constructor(
    readonly reason: WorkflowDenialReason,
    /** The instance the step found before it refused (its outcome still names it); `undefined`: none known. */
    readonly seen?: WorkflowSighting,
  ) {
    super(reason.code);
    this.name = 'WorkflowDenial';
  }
}

/** The denial of `reason`, to throw; `seen`: the instance the step found. */
export const deny = (reason: WorkflowDenialReason, seen?: WorkflowSighting): WorkflowDenial => new WorkflowDenial(reason, seen);

/** A step of the gate that the store failed: the call is refused STATE_UNAVAILABLE (the cause logged, not told to the model). */
export class WorkflowStoreFailure extends Error {
  constructor(
    override readonly cause: unknown,
    /** The handle a start tool minted before the store failed (the refusal names it). */
    readonly handle?: string,
  ) {
    super('STATE_UNAVAILABLE');
    this.name = 'WorkflowStoreFailure';
  }
}

/** The store failure of `cause`, to throw; `handle`: the handle a start tool minted. */
export const storeFailure = (cause: unknown, handle?: string): WorkflowStoreFailure => new WorkflowStoreFailure(cause, handle);
