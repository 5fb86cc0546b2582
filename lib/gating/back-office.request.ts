import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NO_GRANTS } from '../access/access-requirement.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import type { MutableToolContext, WorkflowCaller, WorkflowRequest } from './workflow-call.js';
import * as messages from './gating.messages.js';

/** What a decision from the app's own code answers: the state it left the instance in, and the decision tool's result. */
export interface McpWorkflowDecision {
  /** The instance's state after the decision. */
  state: string | null;
  /** What the decision tool answered (an approval: the approved tool's handler's result). */
  result: CallToolResult;
}

/** A caller of the app's own code: no session, no token; who acts is `actor`. */
export function backOfficeCaller(): WorkflowCaller {
  return { kind: 'stateless', sessionStoreKey: () => undefined, grants: NO_GRANTS };
}

/**
 * The gate's request for a call of `tool` by `actor` from the app's own code (a back office): the
 * handler's context has `actor` as its principal and no client to ask or notify.
 */
export function backOfficeRequest(
  tool: McpHandlerDefinition,
  caller: WorkflowCaller,
  actor: string,
  args: Record<string, unknown>,
): WorkflowRequest {
  const authInfo = { token: '', clientId: actor, scopes: [] };
  const extra = {
    signal: new AbortController().signal,
    requestId: 0,
    authInfo,
    sendNotification: async () => {},
    sendRequest: async () => {
      throw new Error(messages.noClientInBackOffice(tool.name));
    },
  } as unknown as MutableToolContext['extra'];
  const context: MutableToolContext = {
    toolName: tool.name,
    authInfo,
    extra,
    log: async () => {},
    reportProgress: async () => {},
  };
  return { target: tool, caller, args, context, transport: [{ headers: {} }, undefined] };
}

/** The decision a back-office call's outcome answers; throws its refusal (or error) when it was refused or failed. */
export function decisionOf(outcome: WorkflowCallOutcome): McpWorkflowDecision {
  switch (outcome.status) {
    case 'answered':
      return { state: outcome.state ?? null, result: outcome.result as CallToolResult };
    case 'failed':
      throw outcome.refusal ?? outcome.error;
    case 'asking':
      throw new Error(messages.noClientInBackOffice(outcome.call.tool.name));
  }
}
