import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../nest-internals.js';
import type { output, ZodType } from 'zod';

/**
 * Kinds of handler parameters that MCP tool handlers can ask for. The values stay clear of
 * Nest's route parameter types, so `@Req()` and `@Res()` keep meaning the HTTP request and
 * response that carried the call.
 */
export enum McpParamtype {
  ARGS = 100,
  CONTEXT = 101,
}

/** Metadata of one decorated handler parameter. */
export interface McpParamMetadata {
  index: number;
  data?: string;
  pipes: (Type<PipeTransform> | PipeTransform)[];
}

function createMcpParamDecorator(paramtype: McpParamtype) {
  return (
      dataOrPipe?: string | Type<PipeTransform> | PipeTransform,
      ...pipes: (Type<PipeTransform> | PipeTransform)[]
    ): ParameterDecorator =>
    (target, key, index) => {
      const hasData = typeof dataOrPipe === 'string';
      const allPipes = hasData || dataOrPipe === undefined ? pipes : [dataOrPipe, ...pipes];
      const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key!) ?? {};
      const entry: McpParamMetadata = { index, data: hasData ? dataOrPipe : undefined, pipes: allPipes };
      Reflect.defineMetadata(ROUTE_ARGS_METADATA, { ...args, [`${paramtype}:${index}`]: entry }, target.constructor, key!);
    };
}

/**
 * Injects the tool's validated arguments, or one property of them with `@McpArgs('id')`.
 * Pipes run on the value, as on HTTP route parameters. Type the parameter with the
 * {@link McpArgs} type of the tool's `inputSchema`.
 *
 * @example
 * refund(\@McpArgs() input: McpArgs<typeof refundInput>, \@McpArgs('paymentId') id: string) { ... }
 */
export const McpArgs = createMcpParamDecorator(McpParamtype.ARGS);

/**
 * The arguments a handler receives for the zod schema `TSchema` (its `inputSchema`), after
 * validation: defaults applied, transforms run (zod's output type).
 *
 * @example
 * const refundInput = z.object({ amount: z.number().positive().optional() });
 * refund(\@McpArgs() input: McpArgs<typeof refundInput>) { return input.amount; }
 */
export type McpArgs<TSchema extends ZodType> = output<TSchema>;

/**
 * Injects the call's {@link McpToolContext} (session, handle, state, auth info, the SDK's extra,
 * and the transaction's manager in transactional mode).
 *
 * @example
 * status(\@McpContext() ctx: McpToolContext) { return { state: ctx.state }; }
 */
export const McpContext = createMcpParamDecorator(McpParamtype.CONTEXT);
