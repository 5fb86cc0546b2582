import type { CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import * as messages from './results.messages.js';

/** One request a handler puts to the client mid-call: an elicitation, a sampling request, or a roots listing. */
export type McpInputRequest =
  | { method: 'elicitation/create'; params: ElicitRequestFormParams | ElicitRequestURLParams }
  | { method: 'sampling/createMessage'; params: CreateMessageRequestParams }
  | { method: 'roots/list'; params?: Record<string, never> };

/** The client capability each kind of input request needs. */
export const CAPABILITY_OF_INPUT_REQUEST: Readonly<Record<McpInputRequest['method'], 'elicitation' | 'sampling' | 'roots'>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** What {@link mcpInputRequired} takes. */
export interface McpInputRequiredSpec {
  /** The requests, by keys of the handler's choosing; the answers come back under the same keys in `ctx.inputResponses`. */
  inputRequests: Readonly<Record<string, McpInputRequest>>;
  /**
   * Any JSON value the handler gets back as `ctx.requestState` on the next round. The module
   * signs it (HMAC, `inputRequests.requestStateKey`) and binds it to the caller and the tool,
   * prompt or resource: the client can read it but not change it. Keep secrets out of it.
   */
  requestState?: unknown;
}

/**
 * What a tool, prompt or resource handler returns to ask the client for input before it can
 * answer (MCP 2026-07-28 input-required results, SEP-2322): the client fulfils the requests
 * and calls again with the answers, which the handler reads in `ctx.inputResponses`. On a
 * 2025-11-25 session the module asks the client itself (`elicitation/create`,
 * `sampling/createMessage`, `roots/list` on the call's stream) and calls the handler again,
 * so one handler serves both eras. A gated handler that returns it fires no transition.
 */
export class McpInputRequired {
  constructor(
    readonly inputRequests: Readonly<Record<string, McpInputRequest>>,
    readonly requestState: unknown,
  ) {}
}

/**
 * Builds the value a handler returns to ask the client for input (see {@link McpInputRequired}).
 *
 * @example
 * \@McpTool({ name: 'greet', description: 'Greets the user by name' })
 * greet(\@McpContext() ctx: McpToolContext) {
 *   const answer = ctx.inputResponses?.name as { action: string; content?: { name?: string } } | undefined;
 *   if (answer?.action !== 'accept') {
 *     return mcpInputRequired({
 *       inputRequests: {
 *         name: { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } },
 *       },
 *     });
 *   }
 *   return `Hello, ${answer.content?.name}!`;
 * }
 */
export function mcpInputRequired(spec: McpInputRequiredSpec): McpInputRequired {
  if (Object.keys(spec.inputRequests).length === 0 && spec.requestState === undefined) {
    throw new TypeError(messages.inputRequiredEmpty());
  }
  return new McpInputRequired(spec.inputRequests, spec.requestState);
}

/** Whether a handler's value asks the client for input. */
export function isInputRequired(value: unknown): value is McpInputRequired {
  return value instanceof McpInputRequired;
}
