import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { ZodObject } from 'zod';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { McpAccessRequirement } from '../access/access-requirement.js';

/** The person's yes a transition asks for before it runs (`@McpConfirm`). */
export interface McpToolConfirmation {
  /** Writes the question from the call's arguments and its context (the instance as the gate found it). */
  readonly message: (args: Record<string, unknown>, ctx: McpToolContext) => string | Promise<string>;
  /** The elicitation's `requestedSchema` (no properties: a plain yes). */
  readonly requestedSchema: ElicitRequestFormParams['requestedSchema'];
  /** Checks the accepted answer, when the person fills in more than a yes. */
  readonly schema?: ZodObject;
  /** How long a 2025-11-25 session waits for the answer. */
  readonly timeoutMs: number;
}

/** The second person's approval a transition waits for (`@McpApproval`). */
export interface McpToolApproval {
  /** Which calls wait, from the piped arguments and the context; `undefined`: every call. */
  readonly when?: (input: Record<string, unknown>, ctx: McpToolContext) => boolean;
  /** The state a waiting call leaves the instance in. */
  readonly waitIn: string;
  /** The tool that approves a waiting call. */
  readonly approve: string;
  /** The tool that rejects a waiting call. */
  readonly reject: string;
  /** What a decider must hold, besides passing the machine's access rule; `undefined`: nothing beyond that rule. */
  readonly approvers?: McpAccessRequirement;
  /** Whether a holder of `approvers` reaches a waiting instance whatever the machine's access rule says (`crossTenantApprovers`). */
  readonly crossTenantApprovers: boolean;
  /** The state a rejection leads to; `undefined`: back where the request found the instance. */
  readonly rejectTo?: string;
  /** The state an expiry leads to; `undefined`: `rejectTo`'s, else back where the request found the instance. */
  readonly expireTo?: string;
  /** How long a waiting call waits before it expires as a rejection (or how to compute it); `undefined`: it never expires. */
  readonly expiresAfterMs?: number | ((input: Record<string, unknown>, ctx: McpToolContext) => number);
}

/** What a decision tool of `@McpApproval` does with the waiting call of tool `of`. */
export interface McpApprovalDecision {
  readonly verdict: 'approve' | 'reject';
  /** The tool whose waiting call it decides. */
  readonly of: string;
  /** The approval of that tool: who may decide, and where a rejection leads. */
  readonly approval: McpToolApproval;
  /** The id of the timer that expires the waiting call (cancelled by the decision); `undefined` when it never expires. */
  readonly expiryTimer?: string;
}

/** A handler no workflow gates: it runs in every state, without reading an instance. */
export interface McpUngatedRole {
  readonly kind: 'ungated';
}

/** Reads the caller's instance of `machine`, in any state (a status tool, a workflow's instance resource). */
export interface McpReadRole {
  readonly kind: 'read';
  readonly machine: string;
}

/** Listed and callable while the instance of `machine` is in one of `states` (parents match their children); fires nothing. */
export interface McpBoundRole {
  readonly kind: 'bound';
  readonly machine: string;
  readonly states: readonly string[];
}

/** Callable in `states`; a successful call sends `event` under a claim of the instance. */
export interface McpTransitionRole {
  readonly kind: 'transition';
  readonly machine: string;
  readonly states: readonly string[];
  readonly event: string;
  /** Claim as a row lock in a transaction the handler joins. */
  readonly transactional: boolean;
  /** The person's yes the transition waits for (`@McpConfirm`); `undefined`: none. */
  readonly confirmation?: McpToolConfirmation;
  /** The second person's approval some of its calls wait for (`@McpApproval`); `undefined`: none. */
  readonly approval?: McpToolApproval;
  /** Set on the decision tools of `@McpApproval` (bound to its waiting state, sending the decided tool's event): what it decides. */
  readonly decision?: McpApprovalDecision;
  /** Set on the call `McpWorkflowService.end` makes: it ends (deletes) the instance in whatever state, sending no event. */
  readonly ends?: true;
}

/** Mints a handle of the handle-keyed `machine` and stores its new instance, sending `event` first when given. */
export interface McpStartRole {
  readonly kind: 'start';
  readonly machine: string;
  /** The machine's `stateHandleKey`: the result carries the minted handle under it. */
  readonly handleKey: string;
  readonly event?: string;
  readonly transactional: boolean;
}

/** A handler's part in a workflow: one case each, every case but `ungated` carrying its machine. */
export type McpHandlerRole = McpUngatedRole | McpReadRole | McpBoundRole | McpTransitionRole | McpStartRole;

/** The roles the gate runs: every one but `ungated`. */
export type McpGatedRole = Exclude<McpHandlerRole, McpUngatedRole>;

/** The roles bound to states: listed and callable only while their instance is in one of them. */
export type McpStateRole = McpBoundRole | McpTransitionRole;

/** Whether `role` is bound to states. */
export function isStateRole(role: McpHandlerRole): role is McpStateRole {
  return role.kind === 'bound' || role.kind === 'transition';
}
