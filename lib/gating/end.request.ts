import { z } from 'zod';
import type { McpTransitionRole } from '../registry/mcp-handler-role.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { appRequest } from './back-office.request.js';
import type { WorkflowCall, WorkflowCaller, WorkflowRequest } from './workflow-call.js';

/** The event a history row names when `McpWorkflowService.end` ended the instance (`to` is the state it ended in). */
export const WORKFLOW_END_EVENT = 'mcp.end';

const NO_INPUT = z.object({});

/** The role of an end of an instance of `machine`: a claim in any state, no event; the commit deletes it. */
export function endRole(machine: string, states: readonly string[]): McpTransitionRole {
  return { kind: 'transition', machine, states, event: WORKFLOW_END_EVENT, transactional: false, ends: true };
}

/** The tool name a history row gives an end by the app's own code (`McpWorkflowService.end(ref, { actor })`). */
export const END_TOOL = 'McpWorkflowService.end';

/** Who ends an instance: the connection (or the app's code) and its verified auth, or the actor it vouches for. */
interface EndingCaller {
  readonly caller: WorkflowCaller;
  readonly authInfo?: AuthInfo;
  readonly sessionId?: string;
}

/**
 * The gate's request for an end: a call of a definition no tool lists, named `tool` (the tool
 * whose handler ended it, or {@link END_TOOL}), by `who`, on the instance `args` name (its
 * handle argument; a session's instance by the caller's session). Its handler does nothing:
 * the commit is the end.
 */
export function endRequest(
  role: McpTransitionRole,
  tool: string,
  handle: (call: WorkflowCall, body: () => Promise<unknown>, input: Record<string, unknown>) => Promise<unknown>,
  who: EndingCaller,
  args: Record<string, unknown>,
): WorkflowRequest {
  const definition: McpHandlerDefinition = {
    kind: 'tool',
    name: tool,
    inputSchema: NO_INPUT,
    workflow: role.machine,
    role,
    source: `McpWorkflowService.end (${tool})`,
    invoke: ([, , call]) => handle(call as WorkflowCall, async () => undefined, {}),
  };
  const request = appRequest(definition, who.caller, who.authInfo, args);
  return who.sessionId === undefined ? request : { ...request, context: { ...request.context, sessionId: who.sessionId } };
}

/** A caller that acts for the owner and team of the instance it ends (the app's own code vouches for it, as for an outside event). */
export function endingCaller(caller: WorkflowCaller, found: { owner?: string; team?: string }): WorkflowCaller {
  return { ...caller, outside: { owner: found.owner, team: found.team } };
}
