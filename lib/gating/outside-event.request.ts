import { z } from 'zod';
import { NO_GRANTS } from '../access/access-requirement.js';
import type { MachineEngine } from '../machines/machine-engine.interface.js';
import type { McpTransitionRole } from '../registry/mcp-handler-role.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { actorAuth, appRequest } from './back-office.request.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import type { WorkflowCall, WorkflowCaller, WorkflowRequest } from './workflow-call.js';
import type { McpWorkflowEvent } from './outside-event.interface.js';
import * as messages from './gating.messages.js';

/** The longest actor, idempotency key or handle `send` takes (the receipt table's columns). */
const MAX_TEXT = 255;
const NO_INPUT = z.object({});

/** An outside event as `send` was given it, checked: its name and its `event.input`. */
export interface OutsideEvent {
  readonly type: string;
  readonly input: Record<string, unknown>;
}

/** What one outside event sends, as the gate runs it: the event's role (one per machine and event) and its effect. */
export interface OutsideEventCall {
  readonly role: McpTransitionRole;
  readonly event: OutsideEvent;
  readonly handleKey: string;
  readonly handle: string;
  readonly actor: string;
  readonly idempotencyKey?: string;
  readonly run?: (ctx: never) => unknown;
}

/** The event `send` was given (`'VOID'` or `{ type, input }`); throws, naming what is wrong, for anything else. */
export function outsideEventOf(event: McpWorkflowEvent): OutsideEvent {
  const { type, input } = typeof event === 'string' ? { type: event, input: undefined } : (event ?? {});
  if (typeof type !== 'string' || type === '') throw new Error(messages.sendInvalidOption('event (its name, or { type, input })', event));
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw new Error(messages.sendInvalidOption('event.input (an object)', input));
  }
  return { type, input: { ...input } };
}

/** `value`, when it is a non-empty string of at most 255 characters; throws, naming `what`, otherwise. */
export function checkedText(what: string, value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT) throw new Error(messages.sendInvalidOption(what, value));
  return value;
}

/**
 * The role an outside event of `machine` runs as: a transition bound to every state whose
 * transitions take `event` (guards aside; a parent takes its children's), so the claim refuses
 * any other state (FORBIDDEN, naming it). Throws, naming the machine's events, when no state takes it.
 */
export function outsideEventRole(machine: string, engine: MachineEngine, event: string, transactional: boolean): McpTransitionRole {
  const states = engine.statePaths().filter((path) => {
    const events = engine.eventsWhile(path);
    return events === undefined || events.some((descriptor) => accepts(descriptor, event));
  });
  if (states.length === 0) throw new Error(messages.sendUnknownEvent(machine, event, engine.eventNames()));
  return { kind: 'transition', machine, states, event, transactional };
}

/** Whether an XState event descriptor (`'VOID'`, `'*'`, `'payment.*'`) takes `event`. */
function accepts(descriptor: string, event: string): boolean {
  return descriptor === event || descriptor === '*' || (descriptor.endsWith('.*') && event.startsWith(descriptor.slice(0, -1)));
}

/**
 * The gate's request for an outside event: a call, by the app's own code, of a definition no
 * tool lists (named for the event), whose caller acts for the instance's owner and team
 * (`found`, when there is an instance) and whose principal is the actor. Its handler is the
 * event's effect; `event.input` is the event's input.
 */
export function outsideEventRequest(
  send: OutsideEventCall,
  found: WorkflowSnapshot | undefined,
  handle: (call: WorkflowCall, body: () => Promise<unknown>, input: Record<string, unknown>) => Promise<unknown>,
): WorkflowRequest {
  const { role, event, run } = send;
  const definition: McpHandlerDefinition = {
    kind: 'tool',
    name: event.type,
    inputSchema: NO_INPUT,
    workflow: role.machine,
    role,
    source: `McpWorkflowService.send (${send.actor})`,
    invoke: ([, , call]) =>
      handle(
        call as WorkflowCall,
        async () => {
          // Nothing the effect answers becomes a result: the gate commits once it is done.
          await run?.((call as WorkflowCall).context as never);
        },
        event.input,
      ),
  };
  const caller: WorkflowCaller = {
    kind: 'stateless',
    sessionStoreKey: () => undefined,
    grants: NO_GRANTS,
    outside: { owner: found?.owner, team: found?.team, idempotencyKey: send.idempotencyKey },
  };
  return appRequest(definition, caller, actorAuth(send.actor), { [send.handleKey]: send.handle });
}

/** The state an outside event's outcome stored; throws its refusal (or the effect's error) when it was refused or failed. */
export function sentState(outcome: WorkflowCallOutcome): string {
  switch (outcome.status) {
    case 'answered':
      return outcome.state ?? '';
    case 'failed':
      throw outcome.refusal ?? outcome.error;
    case 'asking':
      throw new Error(messages.noClientInBackOffice(outcome.call.tool.name));
  }
}
