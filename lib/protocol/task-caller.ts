import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { McpSession } from '../sessions/mcp-session.js';
import type { McpTaskCaller, McpTaskRecord } from '../stores/mcp-task-store.interface.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { JSON_RPC_INVALID_REQUEST } from '../results/json-rpc.codes.js';
import * as messages from './protocol.messages.js';

/**
 * Who a task's call runs for, as its record keeps it for a process that carries the task on:
 * how the caller came, whose session-keyed instances it uses, and its verified authority
 * without its token (claims that are not plain JSON are left out).
 */
export function recordedCaller(session: McpSession, authInfo: AuthInfo | undefined): McpTaskCaller {
  return {
    kind: session.kind,
    ...(session.scope && { scope: { ...session.scope } }),
    ...(authInfo && {
      auth: {
        clientId: authInfo.clientId,
        scopes: [...authInfo.scopes],
        ...(authInfo.expiresAt === undefined ? {} : { expiresAt: authInfo.expiresAt }),
        ...(authInfo.extra && { extra: plainJson(authInfo.extra) }),
      },
    }),
  };
}

/** A task's caller as a process that carries the task on acts for it: a session of its own, and the request's extra a background call gets. */
export interface ReplayedCaller {
  readonly session: McpSession;
  readonly extra: McpToolContext['extra'];
}

/**
 * The caller of `record`'s call, for a process that carries the task on: its live session when
 * this process serves it (notifications then reach the client), else a session of the recorded
 * kind and scope with no connection (a 2025-era session that is not here can be told nothing:
 * its notifications are dropped, a question to its client fails); its recorded authority.
 */
export function replayedCaller(record: McpTaskRecord, caller: McpTaskCaller, live: McpSession | undefined): ReplayedCaller {
  const authInfo: AuthInfo | undefined = caller.auth && { token: '', ...caller.auth };
  const connected = caller.kind === 'stateful' || caller.kind === 'stdio' ? 'stateless' : caller.kind;
  const session = live ?? new McpSession(connected, undefined, record.sessionId, caller.scope, caller.auth?.clientId);
  const extra = {
    signal: new AbortController().signal,
    requestId: `task:${record.taskId}`,
    ...(authInfo && { authInfo }),
    ...(record.sessionId === undefined ? {} : { sessionId: record.sessionId }),
    sendNotification: async () => undefined,
    sendRequest: async () => {
      throw new JsonRpcError(JSON_RPC_INVALID_REQUEST, messages.noClientForCarriedTask(record.request.name));
    },
  } as unknown as McpToolContext['extra'];
  return { session, extra };
}

/** `value` as plain JSON (what a store keeps); `undefined` for a value JSON cannot hold. */
function plainJson(value: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
