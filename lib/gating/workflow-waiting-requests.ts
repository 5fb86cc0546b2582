import { Injectable } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { NO_GRANTS, permits, type McpGrants } from '../access/access-requirement.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpToolApproval } from '../registry/mcp-handler-role.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { isListedFor, type WorkflowInstanceCursor, type WorkflowWaitingInstance } from '../stores/workflow-state-reader.interface.js';
import { isRequester, waitingRequestOf } from './approval-request.js';
import { claimAccessOf, mayAccess, type WorkflowCallerAuth } from './workflow-access.js';

/** Pages of a machine's waiting rows one list reads at most when it must judge each row itself (an access function, approvers of every team). */
const MAX_JUDGED_PAGES = 10;

/** A waiting request (`@McpApproval`) as a person who may see its instance reads it. */
export interface McpPendingRequest {
  machine: string;
  /** The instance's handle. */
  handle: string;
  /** What a decision names. */
  requestId: string;
  /** The tool whose call waits. */
  tool: string;
  /** The call's arguments: what its handler runs with once approved. */
  input: Record<string, unknown>;
  /** Who asked (`null`: an anonymous caller). */
  requestedBy: string | null;
  /** ISO-8601 time of the request. */
  requestedAt: string;
  /** ISO-8601 time at which it expires as a rejection; absent when it never does. */
  expiresAt?: string;
  /** The instance as the request found it: what a rejection restores, and what the call was asked on. */
  from: { state: string; context?: Record<string, unknown> };
  /** The state the instance waits in. */
  state: string;
  /** The tool that approves it. */
  approve: string;
  /** The tool that rejects it (or withdraws it, called by the person who asked). */
  reject: string;
  /** The MCP task the call runs as, when it does. */
  taskId?: string;
  /** Whether this person may approve or reject it: the approvers' grants, and they did not ask for it (however their principal is spelled). */
  mayDecide: boolean;
  /** Whether this person asked for it (the very principal): they may withdraw it, never approve it. */
  asked: boolean;
}

/** Who reads waiting requests: their verified auth (principal, scopes, claims) and grants. */
export interface WorkflowReader extends WorkflowCallerAuth {
  readonly authInfo?: AuthInfo;
  readonly grants?: McpGrants;
}

/** One tool with `@McpApproval`, and its machine. */
interface ApprovalOf {
  readonly tool: string;
  readonly machine: string;
  readonly approval: McpToolApproval;
}

/**
 * Reads the waiting requests (`@McpApproval`) a person's access rule opens, on every machine or
 * one: per machine, one page of the store's waiting rows open to the person (their own and their
 * team's, as the store filters them), or, under an access function or approvers of every team
 * (`crossTenantApprovers`), pages of every waiting row judged one by one (at most
 * {@link MAX_JUDGED_PAGES}). An anonymous reader is shown nothing.
 */
@Injectable()
export class WorkflowWaitingRequests {
  private approvalList?: { from: readonly unknown[]; approvals: ApprovalOf[] };

  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
  ) {}

  /** Whether any tool has `@McpApproval` (of `machine`, when given). */
  any(machine?: string): boolean {
    return this.approvals().some((each) => machine === undefined || each.machine === machine);
  }

  /** Whether a holder of `grants` may decide some request (holds the approvers' grants of some `@McpApproval`). */
  decidesAny(grants: McpGrants): boolean {
    return this.approvals().some(({ approval }) => permits(approval.approvers, grants));
  }

  /** The waiting states of every `@McpApproval`, by machine. */
  waitingStates(): ReadonlyMap<string, readonly string[]> {
    const states = new Map<string, string[]>();
    for (const { machine, approval } of this.approvals()) {
      states.set(machine, [...new Set([...(states.get(machine) ?? []), approval.waitIn])]);
    }
    return states;
  }

  /** The waiting requests `reader` may see (of `machine`, when given), newest first, at most `limit`. */
  async list(reader: WorkflowReader, limit: number, machine?: string): Promise<McpPendingRequest[]> {
    if (!reader.authInfo?.clientId) return [];
    const byMachine = new Map<string, ApprovalOf[]>();
    for (const each of this.approvals()) {
      if (machine === undefined || each.machine === machine) byMachine.set(each.machine, [...(byMachine.get(each.machine) ?? []), each]);
    }
    const found: McpPendingRequest[] = [];
    for (const [id, approvals] of byMachine) {
      found.push(...(await this.listOn(reader, id, approvals, limit)));
    }
    return found.sort((a, b) => Date.parse(b.requestedAt) - Date.parse(a.requestedAt)).slice(0, limit);
  }

  private async listOn(reader: WorkflowReader, machineId: string, approvals: ApprovalOf[], limit: number): Promise<McpPendingRequest[]> {
    const machine = this.machines.machine(machineId);
    const grants = reader.grants ?? NO_GRANTS;
    const everyTeam = (approval: McpToolApproval) => approval.crossTenantApprovers && permits(approval.approvers, grants);
    const judged = typeof machine.access === 'function' || approvals.some(({ approval }) => everyTeam(approval));
    const access = claimAccessOf(reader.authInfo, machine, { scope: 'handle' });
    const openTo = judged ? undefined : { owner: access.owner, team: access.team };
    const states = [...new Set(approvals.map(({ approval }) => approval.waitIn))];
    const found: McpPendingRequest[] = [];
    let after: WorkflowInstanceCursor | undefined;
    for (let page = 0; page < (judged ? MAX_JUDGED_PAGES : 1) && found.length < limit; page++) {
      const { instances, next } = await this.store.listWaiting({
        machine: machineId,
        states,
        limit,
        ...(openTo && { openTo }),
        ...(after && { after }),
      });
      for (const row of instances) {
        const waiting = waitingRequestOf(row, row.key)!;
        const of = approvals.find(({ tool, approval }) => tool === waiting.tool && approval.waitIn === row.state);
        const handle = parseInstanceKey(row.key).id;
        const opens = () =>
          typeof machine.access === 'function'
            ? mayAccess(reader, machine, { machine: machineId, scope: 'handle', handle }, { ...row, waiting })
            : isListedFor(row, { openTo: access });
        if (of && (!judged || everyTeam(of.approval) || opens())) found.push(this.view(reader, of, row, handle));
      }
      if (!next) break;
      after = next;
    }
    return found;
  }

  /** `row`'s request as `reader` reads it. */
  private view(reader: WorkflowReader, { machine, approval }: ApprovalOf, row: WorkflowWaitingInstance, handle: string): McpPendingRequest {
    const waiting = waitingRequestOf(row, row.key)!;
    const principal = reader.authInfo?.clientId;
    const asked = principal !== undefined && waiting.requestedBy === principal;
    return {
      machine,
      handle,
      requestId: waiting.requestId,
      tool: waiting.tool,
      input: waiting.input,
      requestedBy: waiting.requestedBy,
      requestedAt: waiting.at,
      ...(waiting.expiresAt === undefined ? {} : { expiresAt: waiting.expiresAt }),
      from: waiting.from,
      state: row.state,
      approve: approval.approve,
      reject: approval.reject,
      ...(waiting.taskId === undefined ? {} : { taskId: waiting.taskId }),
      mayDecide: principal !== undefined && !isRequester(principal, waiting) && permits(approval.approvers, reader.grants ?? NO_GRANTS),
      asked,
    };
  }

  /** Every tool with `@McpApproval`, worked out again when the registry's list changed (it is filled once at bootstrap). */
  private approvals(): ApprovalOf[] {
    const all = this.tools.all();
    if (this.approvalList?.from !== all) {
      const approvals = all.flatMap(({ name, role }) =>
        role.kind === 'transition' && role.approval ? [{ tool: name, machine: role.machine, approval: role.approval }] : [],
      );
      this.approvalList = { from: all, approvals };
    }
    return this.approvalList.approvals;
  }
}
