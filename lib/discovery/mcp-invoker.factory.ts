import { Inject, Injectable } from '@nestjs/common';
import { ApplicationConfig, createContextId, ModuleRef } from '@nestjs/core';
import { FsmCall } from '../gating/fsm-call.js';
import { FsmGate } from '../gating/fsm-gate.js';
import { MCP_DISCOVERY_OPTIONS, type McpDiscoveryOptions } from '../options/mcp-resolved-options.interface.js';
import { INTERCEPTORS_METADATA, type InstanceWrapper } from '../nest-internals.js';
import type { McpToolInvoker } from '../registry/mcp-tool-definition.interface.js';
import * as messages from './discovery.messages.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';

type Method = (...args: unknown[]) => unknown;

/** Where a handler method lives: its provider, class and name, and `Class.method` for messages. */
export interface McpHandlerSite {
  wrapper: InstanceWrapper;
  metatype: Function;
  methodName: string;
  method: Method;
  source: string;
}

/**
 * Builds the invoker of a tool, prompt or resource method: the method in the Nest pipeline,
 * with the gate where it belongs (after the guards: around the method when no interceptor of
 * the app applies, else as the method's first interceptor), per call for request-scoped
 * providers.
 */
@Injectable()
export class McpInvokerFactory {
  constructor(
    private readonly handlers: McpHandlerFactory,
    private readonly moduleRef: ModuleRef,
    private readonly gate: FsmGate,
    private readonly appConfig: ApplicationConfig,
    @Inject(MCP_DISCOVERY_OPTIONS) private readonly options: McpDiscoveryOptions,
  ) {}

  create({ wrapper, metatype, methodName, method, source }: McpHandlerSite, gated: boolean): McpToolInvoker {
    const intercepted = this.hasInterceptors(metatype, method);
    const callback = !gated ? method : intercepted ? this.withGateInterceptor(method) : this.withGateAround(method);
    // The gate around the method finds its call in the running pipeline's async context.
    const scoped = gated && !intercepted;
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const run = this.handlers.create(wrapper.instance as object, callback, methodName);
      return scoped ? (args) => FsmCall.run(args[2] as FsmCall, () => run(...args)) : (args) => run(...args);
    }
    if (!this.options.allowRequestScoped) {
      throw new Error(messages.requestScopedRefused(source));
    }
    return async (args) => {
      const contextId = createContextId();
      const call = args[2] as FsmCall;
      this.moduleRef.registerRequestByContextId({ args: call.args, context: call.context }, contextId);
      const instance = await this.moduleRef.resolve(metatype, contextId, { strict: false });
      const run = this.handlers.create(instance as object, callback, methodName, contextId, wrapper.id);
      return scoped ? FsmCall.run(call, () => run(...args)) : run(...args);
    };
  }

  /** Whether any interceptor of the app applies to the method: global, on its class, or on itself. */
  private hasInterceptors(metatype: Function, method: Method): boolean {
    const declared = (target: object) => ((Reflect.getMetadata(INTERCEPTORS_METADATA, target) as unknown[] | undefined) ?? []).length > 0;
    const global = this.appConfig.getGlobalInterceptors().length + this.appConfig.getGlobalRequestInterceptors().length > 0;
    return global || declared(metatype) || declared(method);
  }

  /**
   * A stand-in for the method with all of its metadata plus the gate, first among the
   * method's interceptors: every guard runs before the gate claims anything, and the
   * method's own interceptors and pipes run inside the claim.
   */
  private withGateInterceptor(method: Method): Method {
    const callback = this.standIn(method, function (this: unknown, ...args: unknown[]) {
      return method.apply(this, args);
    });
    const interceptors = Reflect.getMetadata(INTERCEPTORS_METADATA, method) ?? [];
    Reflect.defineMetadata(INTERCEPTORS_METADATA, [this.gate, ...interceptors], callback);
    return callback;
  }

  /** A stand-in for a method without interceptors: the gate runs around it, after guards and pipes. */
  private withGateAround(method: Method): Method {
    const gate = this.gate;
    return this.standIn(method, function (this: unknown, ...args: unknown[]) {
      return gate.handle(FsmCall.current()!, () => method.apply(this, args));
    });
  }

  /** `callback` with all of `method`'s metadata; the user's method itself is never changed, so several applications in one process stay independent. */
  private standIn(method: Method, callback: Method): Method {
    for (const key of Reflect.getMetadataKeys(method)) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, method), callback);
    }
    return callback;
  }
}
