import { SetMetadata } from '@nestjs/common';
import type { SchemaOf } from '../machines/machine-schema.js';
import { MCP_APPROVAL_METADATA } from '../mcp.constants.js';
import type { McpToolContext } from './mcp-tool-context.interface.js';
import type { WorkflowContext } from './workflow-context.interface.js';

/** A decision tool the library registers for an approved transition: its name and description. */
export interface McpApprovalToolOptions {
  /** The tool's name (`payment.approve_refund`). */
  name: string;
  /** What the model reads. @default one naming the tool it decides and the rule */
  description?: string;
}

/** Who may decide a waiting request: every scope of `scopes`, and one of `roles` when given (as `@McpRequire`). */
export interface McpApprovers {
  /** OAuth scopes the decider's token must all hold. @default [] */
  scopes?: readonly string[];
  /** Roles (from the `auth.roles` hook) of which the decider must hold one. @default [] */
  roles?: readonly string[];
}

/** Options of `@McpApproval`. */
export interface McpApprovalOptions<TMachine extends { readonly id: string }, TArgs> {
  /**
   * Which calls wait for a second person, from the call's arguments after the pipes and the
   * instance as the gate found it; the others run at once, as without `@McpApproval`.
   * @default every call
   */
  when?: (input: TArgs, ctx: WorkflowContext<TMachine>) => boolean;
  /** The state a waiting call leaves the instance in until it is decided: one the machine declares (`refund_pending: {}`). */
  waitIn: SchemaOf<TMachine>['states'];
  /**
   * What a decider must hold, besides passing the machine's access rule (its owner, its team, its
   * access function): a stranger to the instance gets `UNKNOWN_HANDLE` whatever they hold. Never
   * the requester (see `SELF_APPROVAL`), who may withdraw their own request without it.
   * @default anyone the access rule lets in
   */
  approvers?: McpApprovers;
  /**
   * `true` opens every waiting instance of the machine to every holder of `approvers`, whatever the
   * machine's access rule says (approvers of another team, or of none, decide): a choice an app
   * makes on purpose, logged at bootstrap. Needs `approvers`.
   * @default false: deciders pass the access rule like any caller
   */
  crossTenantApprovers?: boolean;
  /** Where a rejection leads: a state the machine declares (its context stays as the request found it). @default back where the request found the instance */
  rejectTo?: SchemaOf<TMachine>['states'];
  /** Where an expiry (`expiresAfterMs`) leads: a state the machine declares. @default `rejectTo`, else back where the request found the instance */
  expireTo?: SchemaOf<TMachine>['states'];
  /** The tool that approves: it runs the call's handler with the call's arguments. Takes the machine's handle argument. */
  approve: McpApprovalToolOptions;
  /** The tool that rejects: the instance goes back to where the call found it. Takes the handle argument and `reason?`. */
  reject: McpApprovalToolOptions;
  /**
   * How long a waiting call waits, in milliseconds (a positive whole number), or a function of
   * the call's arguments and the instance as the call found it that answers it: then the request
   * expires as a rejection (`reject`'s decision, reason `"expired"`, history actor
   * `deadline:<timer id>`), fired by the deadline scheduler from a durable timer written with the
   * waiting state. Deciding first cancels it. Needs a store that keeps timers.
   * @default never expires
   */
  expiresAfterMs?: number | ((input: TArgs, ctx: WorkflowContext<TMachine>) => number);
}

/** Metadata stored by `@McpApproval`. */
export interface McpApprovalMetadata {
  machine: { readonly id: string };
  when?: (input: Record<string, unknown>, ctx: McpToolContext) => boolean;
  waitIn: string;
  approvers: { scopes: string[]; roles: string[] };
  crossTenantApprovers: boolean;
  rejectTo?: string;
  expireTo?: string;
  approve: McpApprovalToolOptions;
  reject: McpApprovalToolOptions;
  expiresAfterMs?: number | ((input: Record<string, unknown>, ctx: McpToolContext) => number);
}

/**
 * A second person's approval (four eyes) for a transition tool: a call where `when` holds is
 * admitted and decided as any call is (FORBIDDEN and GUARD_REJECTED come now), but its handler
 * does not run. The instance waits in `waitIn` with the request stored beside it (its
 * `requestId`), and the caller is told so. The library registers two tools that take the handle
 * and the `requestId`, listed to `approvers` the access rule lets in while something waits:
 * `approve` sends the stored event with the stored arguments (guards checked again, the requester
 * as `event.principal`, the approver as `event.approval.by`) and runs the handler then, exactly
 * once whichever replica decides; `reject` puts the instance back as the call found it (or in
 * `rejectTo`). The requester can never approve their own request, and may withdraw it. With
 * `expiresAfterMs`, a request nobody decides in time expires as a rejection.
 * Goes with `@McpBindState(machine, states, event)` of the same machine. See docs/approvals-and-tasks.md.
 *
 * @example
 * \@McpTool({ name: 'payment.refund', description: 'Refund a captured payment' })
 * \@McpBindState(paymentMachine, 'captured', 'REFUND', { transactional: true })
 * \@McpApproval(paymentMachine, {
 *   when: (input) => (input.amount ?? 0) > 100,
 *   waitIn: 'refund_pending',
 *   approvers: { scopes: ['payments:approve'] },
 *   approve: { name: 'payment.approve_refund' },
 *   reject: { name: 'payment.reject_refund' },
 *   expiresAfterMs: 24 * 60 * 60 * 1000,
 * })
 * refund() { ... }
 */
export function McpApproval<TMachine extends { readonly id: string }, TArgs extends object = Record<string, unknown>>(
  machine: TMachine,
  options: McpApprovalOptions<TMachine, TArgs>,
): MethodDecorator {
  return SetMetadata<string, McpApprovalMetadata>(MCP_APPROVAL_METADATA, {
    machine,
    when: options.when as McpApprovalMetadata['when'],
    waitIn: options.waitIn,
    approvers: { scopes: [...(options.approvers?.scopes ?? [])], roles: [...(options.approvers?.roles ?? [])] },
    crossTenantApprovers: options.crossTenantApprovers === true,
    ...(options.rejectTo === undefined ? {} : { rejectTo: options.rejectTo }),
    ...(options.expireTo === undefined ? {} : { expireTo: options.expireTo }),
    approve: { ...options.approve },
    reject: { ...options.reject },
    ...(options.expiresAfterMs === undefined ? {} : { expiresAfterMs: options.expiresAfterMs as McpApprovalMetadata['expiresAfterMs'] }),
  });
}
