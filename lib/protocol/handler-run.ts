import type { MutableToolContext, WorkflowRequest } from '../gating/workflow-call.js';
import type { WorkflowCallOutcome } from '../gating/workflow-call-outcome.js';
import type { WorkflowCutoff } from '../gating/workflow-cutoff.js';
import { httpExchangeOf, type McpHttpExchange } from './mcp-http-request.storage.js';
import type { McpSession } from '../sessions/mcp-session.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { LIST_CHANGED, type ToolMenuService } from '../sessions/tool-menu.service.js';

/**
 * The gate's request for one call a session made of `target` with its checked `args`: the
 * transport's part is the HTTP exchange that carried it, or `{ headers: {} }` on stdio.
 */
export function sessionCallRequest(
  target: McpHandlerDefinition,
  session: McpSession,
  args: Record<string, unknown>,
  context: MutableToolContext,
  exchange: McpHttpExchange | undefined,
  cutoff: WorkflowCutoff,
): WorkflowRequest {
  return { target, caller: session, args, context, transport: [exchange?.request ?? { headers: {} }, exchange?.response], cutoff };
}

/**
 * The HTTP exchange that carried the request `extra` belongs to, taken when its handler starts
 * (in the turn the SDK dispatched it, while its POST is surely open), so every round of the call
 * gets it, also after the client's stream closed.
 */
export function callExchange(session: McpSession, extra: MutableToolContext['extra']): McpHttpExchange | undefined {
  return httpExchangeOf(session, extra.requestId);
}

/**
 * Tells the calling session, on its request's stream, which lists of its menu the call
 * changed, and which of its subscribed resources show the instance the call moved.
 */
export async function announceMenuChanges(
  menu: ToolMenuService,
  session: McpSession,
  outcome: WorkflowCallOutcome,
  extra: MutableToolContext['extra'],
): Promise<void> {
  // A 2026-07-28 request (or a task another process carries on) has no connection whose lists could differ: its results carry the
  // state. A keyed call that answered its first result changed nothing, and the state it answers may be old.
  const { instance, state } = outcome;
  if (!session.server || !instance || state === undefined || (outcome.status === 'answered' && outcome.replayed)) {
    return;
  }
  for (const kind of await menu.observe(session, instance, state, outcome.stored?.followed)) {
    await extra.sendNotification({ method: LIST_CHANGED[kind] });
  }
  if (outcome.stored) {
    for (const uri of session.subscriptions?.get(instance.storeKey) ?? []) {
      await extra.sendNotification({ method: 'notifications/resources/updated', params: { uri } });
    }
  }
}
