import { Injectable } from '@nestjs/common';
import { ExternalContextCreator, type ContextId } from '@nestjs/core';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import { ExecutionContextHost, ROUTE_ARGS_METADATA, type ExternalExceptionFilterContext } from '../nest-internals.js';
import { McpParamsFactory } from './mcp-params.factory.js';

type Method = (...args: unknown[]) => unknown;

/** A tool method wrapped in the Nest pipeline: called with `[request, response, call]`. */
export type McpHandler = (...args: unknown[]) => Promise<unknown>;

/**
 * Wraps a tool method in the Nest pipeline, as `@nestjs/graphql` wraps resolvers: guards,
 * interceptors, pipes (the gate runs among them), and the method's exception filters, in the
 * `'mcp'` context. One difference from Nest's own external wrapper: an error that no filter of
 * the app handles is rethrown without being logged here, because the call handler logs it
 * once, with the error id the model reads.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();

  constructor(private readonly contextCreator: ExternalContextCreator) {}

  /** `metadataKey`: where the method's parameters are declared (a gated stand-in's own key, see `gatedCallParameter`). */
  create(
    instance: object,
    callback: Method,
    methodName: string,
    contextId?: ContextId,
    inquirerId?: string,
    metadataKey: string = ROUTE_ARGS_METADATA,
  ): McpHandler {
    const run = this.contextCreator.create(
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
}
