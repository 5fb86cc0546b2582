import { type ParamData } from '@nestjs/common';
import type { ParamsFactory } from '@nestjs/core';
import { RouteParamtypes } from '../nest-internals.js';
import { McpParamtype } from '../decorators/tool-params.decorator.js';
import type { WorkflowCall } from '../gating/workflow-call.js';
import { MCP_CALL_PARAMTYPE } from './gated-call.parameter.js';

/**
 * Maps `@McpArgs()`, `@McpContext()`, `@Req()`, `@Res()` and a gated stand-in's call parameter
 * to the values of a call (handler arguments `[request, response, call]`).
 */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    const call = args[2] as WorkflowCall;
    switch (type) {
      case McpParamtype.ARGS:
        return typeof data === 'string' ? call.args[data] : call.args;
      case McpParamtype.CONTEXT:
        return call.context;
      case MCP_CALL_PARAMTYPE:
        return call;
      case RouteParamtypes.REQUEST:
        return args[0];
      case RouteParamtypes.RESPONSE:
        return args[1];
      default:
        return undefined;
    }
  }
}
