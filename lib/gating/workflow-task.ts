import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The MCP task a call runs as (a task-augmented `tools/call`): its result is kept for `tasks/result`, not answered in-band. */
export interface WorkflowTaskRef {
  readonly taskId: string;
}

/**
 * Settles the task of a call that waited (a second person's approval): the step that ends the
 * wait hands it the result the task completes with (a tool error, for a rejection).
 */
export interface WorkflowTaskResults {
  settle(taskId: string, result: CallToolResult): Promise<void>;
}

/** The `WorkflowTaskResults` of the module (present when tasks are served). */
export const WORKFLOW_TASK_RESULTS = Symbol.for('nestjs-mcp-fsm:workflow-task-results');
