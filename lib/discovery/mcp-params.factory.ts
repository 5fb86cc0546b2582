import type { ParamData } from '@nestjs/common';
import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { McpParamtype } from '../decorators/tool-params.decorator.js';

/** Maps `@ToolArgs()` and `@ToolContext()` to the values of a call (`[args, context, call]`). */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    const [input, context] = args;
    switch (type) {
      case McpParamtype.ARGS:
        return typeof data === 'string' ? (input as Record<string, unknown> | undefined)?.[data] : input;
      case McpParamtype.CONTEXT:
        return context;
      default:
        return undefined;
    }
  }
}
