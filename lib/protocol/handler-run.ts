import { WorkflowCall, type MutableToolContext } from '../gating/workflow-call.js';
import type { WorkflowGate } from '../gating/workflow-gate.js';
import { JsonRpcError } from './json-rpc.error.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { httpExchangeOf, type McpHttpExchange } from './mcp-http-request.storage.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { LIST_CHANGED, type ToolMenuService } from '../sessions/tool-menu.service.js';

/**
 * How a handler run ended: its value, or what it threw. The gate's refusal, when there was
 * one, wins; so does FORBIDDEN for a tool hidden in its instance's state that the app refused
 * before the gate ran (see {@link WorkflowGate.refuseHidden}).
 */
export type HandlerOutcome = { call: WorkflowCall; ok: true; value: unknown } | { call: WorkflowCall; ok: false; error: unknown };

/**
 * Runs a tool, prompt or resource handler through the Nest pipeline (the gate included) with
 * `[request, response, call]`: the HTTP exchange that carried it ({@link callExchange}), or
 * `{ headers: {} }` on stdio. When `cutoff` aborts before the call began to commit, the
 * outcome is its reason, at once.
 */
export async function runHandler(
  definition: McpHandlerDefinition,
  session: McpSession,
  args: Record<string, unknown>,
  context: MutableToolContext,
  gate: WorkflowGate,
  exchange: McpHttpExchange | undefined,
  cutoff?: AbortSignal,
): Promise<HandlerOutcome> {
  const call = new WorkflowCall(definition, session, args, context, cutoff);
  try {
    const value = await call.unlessAbandoned(() => definition.invoke([exchange?.request ?? { headers: {} }, exchange?.response, call]));
    const { refusal } = call.outcome;
    return refusal ? { call, ok: false, error: refusal } : { call, ok: true, value };
  } catch (error) {
    // A protocol-level error (the shutdown cutoff among them) is answered as it is.
    const refusal = call.outcome.refusal ?? (error instanceof JsonRpcError ? undefined : await gate.refuseHidden(call));
    return { call, ok: false, error: refusal ?? error };
  }
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
  call: WorkflowCall,
  extra: MutableToolContext['extra'],
): Promise<void> {
  // A 2026-07-28 request has no connection whose lists could differ: its results carry the state.
  const { instance, state } = call.outcome;
  if (session.kind === 'modern' || !instance || state === undefined) {
    return;
  }
  for (const kind of await menu.observe(session, instance, state)) {
    await extra.sendNotification({ method: LIST_CHANGED[kind] });
  }
  if (call.outcome.changedInstance()) {
    for (const uri of session.subscriptions?.get(instance.storeKey) ?? []) {
      await extra.sendNotification({ method: 'notifications/resources/updated', params: { uri } });
    }
  }
}
