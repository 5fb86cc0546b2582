import { ROUTE_ARGS_METADATA } from '../nest-internals.js';
import { WorkflowCall } from '../gating/workflow-call.js';
import * as messages from './discovery.messages.js';

/** Metadata key under which a gated method's stand-in declares its parameters to Nest: the method's own, then its call. */
const MCP_GATED_ARGS_METADATA = 'nestjs-mcp-fsm:gated-route-args';

/** Param type of the call parameter ({@link McpParamsFactory} resolves it to the call of the handler's arguments). */
export const MCP_CALL_PARAMTYPE = 102;

/** Where a gated method's stand-in finds its call among the parameters Nest hands it, and the method's own parameters. */
export interface GatedCallParameter {
  /** The metadata key to give Nest for the stand-in. */
  metadataKey: string;
  /** The call and the method's own parameters, out of the stand-in's; throws when a pipe replaced the call. */
  split(params: unknown[]): { call: WorkflowCall; own: unknown[] };
}

/**
 * Declares the call as the last parameter of a gated method's stand-in (under
 * {@link MCP_GATED_ARGS_METADATA}, on the class beside the method's own parameters, which stay
 * as they are), so the stand-in finds the call it runs for among its parameters, after the
 * guards, interceptors and pipes, without an async context (on Node 20 an AsyncLocalStorage
 * makes every promise of the process pay a hook). A method that declares no parameter keeps
 * Nest's plain arguments, `[request, response, call]`.
 */
export function gatedCallParameter(metatype: Function, methodName: string, source: string): GatedCallParameter {
  const own = (Reflect.getMetadata(ROUTE_ARGS_METADATA, metatype, methodName) ?? {}) as Record<string, { index: number }>;
  const entries = Object.values(own);
  if (entries.length === 0) {
    return { metadataKey: ROUTE_ARGS_METADATA, split: (params) => ({ call: checked(params[2], source), own: params }) };
  }
  const index = Math.max(...entries.map((entry) => entry.index)) + 1;
  const declared = { ...own, [`${MCP_CALL_PARAMTYPE}:${index}`]: { index, data: undefined, pipes: [] } };
  Reflect.defineMetadata(MCP_GATED_ARGS_METADATA, declared, metatype, methodName);
  return {
    metadataKey: MCP_GATED_ARGS_METADATA,
    split: (params) => ({ call: checked(params[index], source), own: params.slice(0, index) }),
  };
}

/** The call, failing closed when an app's pipe replaced it: the gate cannot decide without it. */
function checked(value: unknown, source: string): WorkflowCall {
  if (!(value instanceof WorkflowCall)) throw new Error(messages.callParameterReplaced(source));
  return value;
}
