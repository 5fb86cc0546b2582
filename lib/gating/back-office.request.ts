import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NO_GRANTS, type McpGrants } from '../access/access-requirement.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { WorkflowApprovalVerdict } from '../stores/workflow-waiting-request.interface.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import type { MutableToolContext, WorkflowCaller, WorkflowDecisionTarget, WorkflowRequest } from './workflow-call.js';
import * as messages from './gating.messages.js';

/** What a decision made from the app's own code answers: how it decided, the state it left the instance in, and the decision tool's result. */
export interface McpWorkflowDecision {
  /** How the request was decided: approved, rejected, or withdrawn (the person who asked rejected it). */
  verdict: WorkflowApprovalVerdict;
  /** The request decided. */
  requestId: string;
  /** The instance's state after the decision. */
  state: string | null;
  /** What the decision tool answered (an approval: the approved tool's handler's result). */
  result: CallToolResult;
}

/**
 * A caller outside any connection: no session, no token of its own. `grants` are what it holds
 * (checked as any caller's); `authority: 'app'` when the app's own code vouches for it (a back
 * office), which a decision then does not check.
 */
export function appCaller(grants: McpGrants = NO_GRANTS, authority?: 'app'): WorkflowCaller {
  return { kind: 'stateless', sessionStoreKey: () => undefined, grants, ...(authority && { authority }) };
}

/**
 * The gate's request for a call of `tool` from the app's own code (a back office, a console), by
 * the person `authInfo` names (nobody: an anonymous one): the handler's context has them as its
 * principal and no client to ask or notify.
 */
export function appRequest(
  tool: McpHandlerDefinition,
  caller: WorkflowCaller,
  authInfo: AuthInfo | undefined,
  args: Record<string, unknown>,
  decides?: WorkflowDecisionTarget,
): WorkflowRequest {
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
    ...(authInfo && { authInfo }),
    extra,
    log: async () => {},
    reportProgress: async () => {},
  };
  return { target: tool, caller, args, context, transport: [{ headers: {} }, undefined], ...(decides && { decides }) };
}

/** The verified auth of a back office's `actor`: its id alone (no token, scopes or claims). */
export function actorAuth(actor: string): AuthInfo {
  return { token: '', clientId: actor, scopes: [] };
}

/** The decision a decision call's outcome answers; throws its refusal (or error) when it was refused or failed. */
export function decisionOf(outcome: WorkflowCallOutcome): McpWorkflowDecision {
  switch (outcome.status) {
    case 'answered': {
      const { decided } = outcome;
      if (!decided) throw new Error(messages.noDecision(outcome.call.tool.name, JSON.stringify(outcome.result.content ?? [])));
      return {
        verdict: decided.verdict,
        requestId: decided.requestId ?? '',
        state: outcome.state ?? null,
        result: outcome.result as CallToolResult,
      };
    }
    case 'failed':
      throw outcome.refusal ?? outcome.error;
    case 'asking':
      throw new Error(messages.noClientInBackOffice(outcome.call.tool.name));
  }
}
