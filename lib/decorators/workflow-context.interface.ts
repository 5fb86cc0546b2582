import type { SchemaOf } from '../machines/machine-schema.js';
import type { McpToolContext } from './mcp-tool-context.interface.js';

/**
 * The `@McpContext()` of a tool of `TMachine`'s workflow (bound, start, or reading its
 * instance), typed from the machine `defineMachine` returned: `state` is one of its states,
 * `workflowContext` its context, and `handle` a string on a handle-keyed machine. The gate
 * fills all three before the handler runs. `TManager` is the type of `manager` in
 * transactional mode (a TypeORM `EntityManager`).
 *
 * @example
 * capture(\@McpContext() ctx: WorkflowContext<typeof paymentMachine>) {
 *   return { paymentId: ctx.handle, captured: ctx.workflowContext.authorized };
 * }
 */
export interface WorkflowContext<TMachine extends { readonly id: string }, TManager = unknown>
  extends Omit<McpToolContext<TManager>, 'machine' | 'handle' | 'state' | 'workflowContext'> {
  /** Machine id of the workflow. */
  readonly machine: string;
  /**
   * Handle of the instance (the `stateHandleKey` argument, or the minted one in a start
   * tool); `undefined` on a session-keyed machine.
   */
  readonly handle: SchemaOf<TMachine>['handleKey'] extends string ? string : undefined;
  /** State of the instance when the call was admitted (the initial state in a start tool). */
  readonly state: SchemaOf<TMachine>['value'];
  /** The machine's context when the call was admitted. */
  readonly workflowContext: SchemaOf<TMachine>['context'];
}
