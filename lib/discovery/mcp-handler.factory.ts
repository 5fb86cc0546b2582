import { Injectable } from '@nestjs/common';
import { ExternalContextCreator, type ContextId } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import { ExecutionContextHost, ROUTE_ARGS_METADATA, type ExternalExceptionFilterContext } from '../nest-internals.js';
import { McpAppEnhancers } from './app-enhancers.js';
import { McpParamsFactory } from './mcp-params.factory.js';

type Method = (...args: unknown[]) => unknown;

/** A tool method wrapped in the Nest pipeline: called with `[request, response, call]`. */
export type McpHandler = (...args: unknown[]) => Promise<unknown>;

/**
 * Wraps a tool method in the Nest pipeline, as `@nestjs/graphql` wraps resolvers: guards,
 * interceptors, pipes (the gate runs among them), and the method's exception filters, in the
 * `'mcp'` context. Two differences from Nest's own external wrapper: an error that no filter of
 * the app handles is rethrown without being logged here, because the call handler logs it
 * once, with the error id the model reads; and a method to which no guard, interceptor, pipe
 * or custom parameter decorator of the app applies is called with its parameters directly,
 * as Nest's pipeline would call it with nothing in it, without the pipeline's awaits.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();

  constructor(
    private readonly contextCreator: ExternalContextCreator,
    private readonly enhancers: McpAppEnhancers,
  ) {}

  /** `metadataKey`: where the method's parameters are declared (a gated stand-in's own key, see `gatedCallParameter`). */
  create(
    instance: object,
    callback: Method,
    methodName: string,
    contextId?: ContextId,
    inquirerId?: string,
    metadataKey: string = ROUTE_ARGS_METADATA,
  ): McpHandler {
    const run = this.enhancers.noneApply(instance.constructor, callback, methodName, metadataKey)
      ? this.direct(instance, callback, methodName, metadataKey)
      : this.contextCreator.create(
          instance as never,
          callback,
          methodName,
          metadataKey,
          this.paramsFactory,
          contextId,
          inquirerId,
          { guards: true, interceptors: true, filters: false },
          MCP_CONTEXT_TYPE,
        );
    // Nest's wrapper with `filters: true` logs every error its filters leave alone; the same
    // filter chain, asked directly, does not. The chain builder is not public API.
    const filterContext = (this.contextCreator as unknown as { filtersContextCreator: ExternalExceptionFilterContext })
      .filtersContextCreator;
    const moduleKey = this.contextCreator.getContextModuleKey(instance.constructor);
    const filters = filterContext.create(instance as never, callback as never, moduleKey, contextId, inquirerId);
    return async (...args) => {
      try {
        return await run(...args);
      } catch (error) {
        const host = new ExecutionContextHost(args, instance.constructor as never, callback);
        host.setType(MCP_CONTEXT_TYPE);
        const handled: unknown = filters.invokeCustomFilters(error, host);
        if (handled === undefined) {
          throw error;
        }
        return handled;
      }
    };
  }

  /**
   * The method called as Nest's pipeline calls it when nothing is in it: with the values of its
   * declared parameters (the handler's arguments when it declares none), an Observable it
   * returns taken to its last value.
   */
  private direct(instance: object, callback: Method, methodName: string, metadataKey: string): McpHandler {
    const declared = (Reflect.getMetadata(metadataKey, instance.constructor, methodName) ?? {}) as Record<
      string,
      { index: number; data?: unknown }
    >;
    const params = Object.entries(declared).map(([key, { index, data }]) => ({ type: Number(key.split(':')[0]), index, data }));
    const length = Math.max(0, ...params.map(({ index }) => index + 1));
    const factory = this.paramsFactory;
    const valuesOf = (args: unknown[]) => {
      if (params.length === 0) return args;
      const values = new Array<unknown>(length).fill(undefined);
      for (const { type, index, data } of params) values[index] = factory.exchangeKeyForValue(type, data as never, args);
      return values;
    };
    return async (...args) => {
      const result = await callback.apply(instance, valuesOf(args));
      return isObservable(result) ? lastValueFrom(result) : result;
    };
  }
}
