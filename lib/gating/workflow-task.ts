import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The MCP task a call runs as (a task-augmented `tools/call`): its result is kept for `tasks/result`, not answered in-band. */
export interface WorkflowTaskRef {
  readonly taskId: string;
}

/**
 * What cancelling a task found of the request its call left waiting: withdrawn now, decided first
 * (the task keeps that result), being decided (another call held the instance all the while the
 * withdrawal tried: nothing changed), or none (its call did not wait).
 */
export type WorkflowTaskWithdrawn = 'withdrawn' | 'decided' | 'busy' | 'none';

/** Withdraws, as the gate decides, the waiting request of a task being cancelled (`tasks/cancel`). */
export type WorkflowTaskWithdrawal = (task: {
  readonly taskId: string;
  /** The call the task runs: its tool and arguments. */
  readonly request: { readonly name: string; readonly arguments: Record<string, unknown> };
  /** The requester's principal, when the task belongs to one. */
  readonly principal?: string;
  /** Whether the task's call left it waiting (no process runs it any more). */
  readonly parked: boolean;
}) => Promise<WorkflowTaskWithdrawn>;

/**
 * Settles the task of a call that waited (a second person's approval): the step that ends the
 * wait hands it the result the task completes with (a tool error, for a rejection). Cancelling
 * such a task withdraws its request first, with the withdrawal the approvals register.
 */
export interface WorkflowTaskResults {
  settle(taskId: string, result: CallToolResult): Promise<void>;
  /** Registers how a cancelled task's waiting request is withdrawn (`McpApprovalsService` does, at startup). */
  withdrawOnCancel(withdrawal: WorkflowTaskWithdrawal): void;
}

/** The `WorkflowTaskResults` of the module (present when tasks are served). */
export const WORKFLOW_TASK_RESULTS = Symbol.for('nestjs-mcp-fsm:workflow-task-results');
