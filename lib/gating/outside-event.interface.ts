import type { McpMachineRef } from '../decorators/machine-ref.type.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { WorkflowContext } from '../decorators/workflow-context.interface.js';
import type { SchemaOf } from '../machines/machine-schema.js';

/** The instance an outside event goes to: a handle-keyed machine (the one `defineMachine` returned, or its id) and the instance's handle. */
export interface McpWorkflowEventTarget<TMachine extends McpMachineRef = McpMachineRef> {
  /** The machine; given as the object `defineMachine` returned, the event and the result are typed from it. */
  readonly machine: TMachine;
  /** The instance's handle (what the start tool returned under the machine's `stateHandleKey`). */
  readonly handle: string;
}

/** The name of an event of `TMachine`: one its states accept (any string for a machine given by id). */
export type McpWorkflowEventType<TMachine extends McpMachineRef = McpMachineRef> = SchemaOf<TMachine>['accepts'][1];

/**
 * An outside event for an instance of `TMachine`: its name, or `{ type, input }` as a tool call
 * sends it (guards and actions read `event.input`; `event.principal` is the actor).
 */
export type McpWorkflowEvent<TMachine extends McpMachineRef = McpMachineRef> =
  McpWorkflowEventType<TMachine> | { readonly type: McpWorkflowEventType<TMachine>; readonly input?: Record<string, unknown> };

/** What the effect of an outside event gets: the call's context, typed from the machine when it was given as an object. */
export type McpWorkflowEventContext<TMachine extends McpMachineRef, TManager> = TMachine extends { readonly id: string }
  ? WorkflowContext<TMachine, TManager>
  : McpToolContext<TManager>;

/** How `McpWorkflowService.send` sends an outside event. */
export interface McpWorkflowSendOptions<TMachine extends McpMachineRef = McpMachineRef, TManager = unknown> {
  /**
   * Who sends it (`'psp'`, `'bank'`): guards and actions see it as `event.principal.id`, and the
   * history row names it. The app vouches for it: the instance is reached whoever owns it.
   */
  actor: string;
  /**
   * The sender's id of the event (a webhook's event id): the event is applied once per key and
   * instance, across processes and restarts; a send with a key already applied answers
   * `{ applied: false }` and changes nothing. Needs a store with receipts (`FsmEventLog`;
   * the TypeORM store needs `CreateMcpFsmEvent1766620800000`). Without it every send is applied.
   */
  idempotencyKey?: string;
  /**
   * The event's effect, run as a tool's handler: after the claim and the guards, before the
   * commit; on a transactional store `ctx.manager` is the transaction the state change commits
   * in. When it throws, nothing is stored and its error is what `send` rejects with.
   */
  run?: (ctx: McpWorkflowEventContext<TMachine, TManager>) => unknown;
}

/** What `McpWorkflowService.send` answers when it did not refuse the event. */
export interface McpWorkflowSendResult<TMachine extends McpMachineRef = McpMachineRef> {
  /** `true`: this send moved the instance; `false`: an earlier send with the same idempotency key did, and nothing changed. */
  readonly applied: boolean;
  /** The instance's state after the send (as it is now when `applied` is `false`). */
  readonly state: SchemaOf<TMachine>['value'];
}
