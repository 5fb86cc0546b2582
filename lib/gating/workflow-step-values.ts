import type { MachineState, MachineTimers } from '../machines/machine-engine.interface.js';
import { hasTimers } from '../machines/machine-timers.js';
import type { McpApprovalContext } from '../decorators/mcp-tool-context.interface.js';
import type { McpCallResults } from '../results/call-result.builder.js';
import type { FsmInstanceScope } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowApprovalNote, WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';
import type { FsmInstanceLock } from '../stores/locks/fsm-instance-lock.interface.js';
import type { FsmTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import type { WorkflowRefusal } from './workflow-refusal.js';

/** Which stored instance a call acts on. */
export interface WorkflowInstanceRef {
  readonly machine: string;
  /** Key in the store (see `formatInstanceKey`). */
  readonly storeKey: string;
  readonly scope: FsmInstanceScope;
  /** The handle argument (handle-keyed machines), or the minted handle of a start tool. */
  readonly handle?: string;
}

/** What a call holds on its instance from its admission to its commit or release. */
export type WorkflowHold =
  | { readonly kind: 'none' }
  /** The claim of a transition: a lease, a row lock or an in-process mutex. */
  | { readonly kind: 'lock'; readonly lock: FsmInstanceLock }
  /** The transaction a transactional start tool creates its instance in. */
  | { readonly kind: 'transaction'; readonly transaction: FsmTransaction };

/** An instance as a step of the gate found it: known to be the caller's, in a state the machine has. */
export interface WorkflowSighting {
  readonly instance: WorkflowInstanceRef;
  readonly snapshot: WorkflowSnapshot;
}

/** A call the gate let in: the instance it acts on, as the call found it, and what it holds on it. */
export interface WorkflowAdmission extends WorkflowSighting {
  /** What the call holds on the instance (a start tool's: the new instance, in the initial state, holds its transaction or nothing). */
  readonly hold: WorkflowHold;
}

/** Where an admitted call leads: from the instance as its event is sent to it, to the state its transition (or start) stores once the handler succeeded. */
export interface WorkflowDecision {
  /** The instance the event is sent to (a start tool's: its initial state, with the context its piped arguments give it). */
  readonly from: WorkflowSnapshot;
  readonly next: MachineState;
  /** The timers the transition (a start's: its initial state, then its event) schedules and cancels; left out when none. */
  readonly timers?: MachineTimers;
  /** The request stored with `next` when the call waits for a second person's approval (`@McpApproval`): its handler does not run. */
  readonly waiting?: WorkflowWaitingRequest;
  /** The event its history row names, when not the tool's (a rejection sends none). */
  readonly event?: string | null;
  /** How it decided a waiting request (an approve or reject tool's call), for its history row. */
  readonly approval?: WorkflowApprovalNote;
  /** Who asked for and who approved the request an approval runs: what its handler reads as `ctx.approval`. */
  readonly approved?: McpApprovalContext;
  /** The call ends the instance (`McpWorkflowService.end`): the commit deletes it, with a history row whose event is `mcp.end`. */
  readonly ends?: true;
}

/** `decision` with its timers, when it has any. */
export function withTimers(decision: WorkflowDecision, timers: MachineTimers | undefined): WorkflowDecision {
  return hasTimers(timers) ? { ...decision, timers } : decision;
}

/** What a call changed in the store: the state it stored (`null`: its handler ended the instance). */
export interface WorkflowStored {
  readonly state: string | null;
  /** Set when the start's transaction also stored that the calling session follows the new instance (see `WorkflowStartFollows`). */
  readonly followed?: true;
}

/** The MCP result of a handler's value: a tool's, a prompt's or a resource's. */
export type McpCallResult = McpCallResults[keyof McpCallResults];

/** What the gate settled of one call it ran: what its observer is told, once the gate is done with the call. */
export interface WorkflowSettlement {
  /** The instance the call acts on, once resolved and found to be the caller's. */
  readonly instance?: WorkflowInstanceRef;
  /** The instance as the call was admitted on it. */
  readonly admitted?: WorkflowSnapshot;
  /** What the call stored; `undefined` while it stored nothing. */
  readonly stored?: WorkflowStored;
  /** The gate's refusal. */
  readonly refusal?: WorkflowRefusal;
  /** Whether the server gave up on the call at shutdown before its commit began (nothing of it was stored). */
  readonly abandoned: boolean;
  /** Whether the gate answered a question for the client (a confirmation, input the handler asks for): no outcome yet. */
  readonly asking: boolean;
  /** How the call decided a waiting request (`@McpApproval`), when it did: the verdict, who asked, which request. */
  readonly decided?: WorkflowApprovalNote;
}

/** How a call that waits for a second person's approval stands. */
export interface WorkflowCallWaiting {
  readonly state: string;
  readonly statusMessage: string;
  /** The id of the request that waits: what a decision names. */
  readonly requestId: string;
}
