import type { ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { MutableToolContext } from '../gating/workflow-call.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { McpSession } from '../sessions/mcp-session.js';

/** RFC 5424 severities as MCP orders them, least severe first. */
const SEVERITY: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/**
 * Whether a message at `level` passes the session's minimum: the 2025 era's `logging/setLevel`
 * (all pass without one), or a 2026-07-28 request's `logLevel` (none pass without one).
 */
function passesLogLevel(session: McpSession, level: LoggingLevel): boolean {
  if (session.logLevel === undefined) {
    return session.kind !== 'modern';
  }
  return SEVERITY[level] >= SEVERITY[session.logLevel];
}

/** What one round of a call carries besides its params: the client's capabilities, and its answers to the previous round's input requests. */
export interface McpCallRound {
  /** The 2026-07-28 request's declared capabilities (a 2025-11-25 session's come from its `initialize`). */
  clientCapabilities?: ClientCapabilities;
  inputResponses?: Record<string, unknown>;
  /** The verified state the handler returned on the previous round. */
  requestState?: unknown;
}

/** The context of one tool call, prompt get or resource read, as `@McpContext()` injects it. */
export function createCallContext(
  session: McpSession,
  name: string,
  extra: McpToolContext['extra'],
  uri?: string,
  round: McpCallRound = {},
): MutableToolContext {
  return {
    toolName: name,
    uri,
    sessionId: session.id,
    authInfo: extra.authInfo,
    clientCapabilities: round.clientCapabilities ?? session.server?.getClientCapabilities(),
    inputResponses: round.inputResponses,
    requestState: round.requestState,
    extra,
    log: async (level, data, logger) => {
      if (passesLogLevel(session, level)) {
        await extra.sendNotification({ method: 'notifications/message', params: { level, data, logger } });
      }
    },
    reportProgress: async (progress, total, message) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
      }
    },
  };
}
