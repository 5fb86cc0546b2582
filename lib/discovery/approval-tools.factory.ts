import { Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { approvalExpiryTimerId } from '../gating/approval-expiry.js';
import { MAX_REQUEST_ID_LENGTH, REQUEST_ID_KEY } from '../gating/approval-request.js';
import { REJECT_REASON_KEY, WorkflowApprovals } from '../gating/workflow-approvals.js';
import { WorkflowCall } from '../gating/workflow-call.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpTransitionRole } from '../registry/mcp-handler-role.js';
import type { McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpApprovalMetadata } from '../decorators/approval.decorator.js';
import * as messages from './discovery.messages.js';

/** The longest `reason` a reject tool takes (it is kept in the history row). */
const MAX_REASON_LENGTH = 500;

/**
 * Builds the two decision tools of a transition with `@McpApproval`, bound to its waiting state,
 * each taking the handle and the `requestId` it decides: approve (runs the tool's own handler,
 * through its Nest pipeline, with the waiting call's arguments; requires the approvers' grants)
 * and reject (runs no handler; requires the approvers' grants, or being the requester, who
 * withdraws). Their calls claim the waiting instance as any transition does, under the machine's
 * access rule; `WorkflowApprovals` decides them.
 */
@Injectable()
export class McpApprovalToolsFactory {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly gate: WorkflowGate,
    private readonly approvals: WorkflowApprovals,
    private readonly machines: McpMachineRegistry,
  ) {}

  /** The decision tools of `tool` (none without `@McpApproval`); throws when its output schema refuses what a waiting call answers. */
  create(tool: McpToolDefinition, meta: McpApprovalMetadata | undefined): McpToolDefinition[] {
    const { role } = tool;
    if (role.kind !== 'transition' || !role.approval || !meta) {
      return [];
    }
    this.assertOutputFits(tool, role);
    const handleKey = this.machines.machine(role.machine).stateHandleKey!;
    const handle = z.string().describe(`The ${handleKey} of the ${role.machine} whose waiting ${tool.name} call to decide`);
    const approval = role.approval;
    if (approval.crossTenantApprovers && approval.approvers) {
      const approvers = [...approval.approvers.scopes, ...approval.approvers.roles].join(', ');
      this.logger.warn(messages.crossTenantApproversOpen(tool.name, role.machine, approvers));
    }
    const bound = (verdict: 'approve' | 'reject'): McpTransitionRole => ({
      kind: 'transition',
      machine: role.machine,
      states: [approval.waitIn],
      event: role.event,
      transactional: role.transactional,
      decision: {
        verdict,
        of: tool.name,
        approval,
        ...(approval.expiresAfterMs !== undefined && { expiryTimer: approvalExpiryTimerId(tool.name) }),
      },
    });
    const common = { kind: 'tool' as const, workflow: tool.workflow };
    const requestId = z.string().min(1).max(MAX_REQUEST_ID_LENGTH).describe(messages.requestIdDescription(tool.name));
    const approveSchema = z.object({ [handleKey]: handle, [REQUEST_ID_KEY]: requestId });
    const rejectSchema = z.object({
      [handleKey]: handle,
      [REQUEST_ID_KEY]: requestId,
      [REJECT_REASON_KEY]: z.string().max(MAX_REASON_LENGTH).optional().describe('Why it is rejected (kept in the history)'),
    });
    const approve: McpToolDefinition = {
      ...common,
      ...(approval.approvers && { access: approval.approvers }),
      name: meta.approve.name,
      description: meta.approve.description ?? messages.approveDescription(tool.name, handleKey),
      annotations: { destructiveHint: tool.annotations?.destructiveHint, idempotentHint: false },
      inputSchema: approveSchema,
      inputJsonSchema: z.toJSONSchema(approveSchema, { io: 'input' }) as Record<string, unknown>,
      outputSchema: tool.outputSchema,
      outputJsonSchema: tool.outputJsonSchema,
      role: bound('approve'),
      source: `${tool.source} (${meta.approve.name})`,
      // The tool's own handler, in its own pipeline: the gate gives it the waiting call's arguments.
      invoke: tool.invoke,
    };
    const reject: McpToolDefinition = {
      ...common,
      // The person who asked withdraws without the approvers' grants: only the gate can tell who that is.
      ...(approval.approvers && { access: { ...approval.approvers, orRequester: true } }),
      name: meta.reject.name,
      description: meta.reject.description ?? messages.rejectDescription(tool.name, handleKey),
      annotations: { destructiveHint: false, idempotentHint: false },
      inputSchema: rejectSchema,
      inputJsonSchema: z.toJSONSchema(rejectSchema, { io: 'input' }) as Record<string, unknown>,
      role: bound('reject'),
      source: `${tool.source} (${meta.reject.name})`,
      invoke: (args) => {
        const call = args[2] as WorkflowCall;
        return this.gate.handle(call, (_admission, decision) => this.approvals.rejectedValue(call, decision));
      },
    };
    return [approve, reject];
  }

  /** A tool with an output schema must accept what a waiting call answers: clients check `structuredContent` against it. */
  private assertOutputFits(tool: McpToolDefinition, role: McpTransitionRole): void {
    if (!tool.outputSchema) {
      return;
    }
    const approval = role.approval!;
    const sample = {
      status: 'waiting_for_approval',
      state: approval.waitIn,
      requestId: 'x'.repeat(24),
      approve: approval.approve,
      reject: approval.reject,
      message: '',
    };
    if (!tool.outputSchema.safeParse(sample).success) {
      throw new Error(messages.approvalOutputSchema(tool.source));
    }
  }
}
