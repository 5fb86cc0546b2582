import type { ParamData } from '@nestjs/common';
import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { McpParamtype } from '../decorators/tool-params.decorator.js';
import type { FsmCall } from '../gating/fsm-call.js';

/** Maps `@ToolArgs()` and `@ToolContext()` to the values of a call (handler arguments `[request, response, call]`). */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    const call = args[2] as FsmCall;
    switch (type) {
      case McpParamtype.ARGS:
        return typeof data === 'string' ? call.args[data] : call.args;
      case McpParamtype.CONTEXT:
        return call.context;
      default:
        return undefined;
    }
  }
}
