import { Inject, Injectable } from '@nestjs/common';
import { createContextId, ModuleRef } from '@nestjs/core';
import { McpParamtype, type McpParamMetadata } from '../decorators/tool-params.decorator.js';
import { WorkflowCall } from '../gating/workflow-call.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { MCP_DISCOVERY_OPTIONS, type McpDiscoveryOptions } from './discovery-options.interface.js';
import { INTERCEPTORS_METADATA, ROUTE_ARGS_METADATA, type InstanceWrapper } from '../nest-internals.js';
import type { McpHandlerRole } from '../registry/mcp-handler-role.js';
import type { McpToolInvoker } from '../registry/mcp-tool-definition.interface.js';
import * as messages from './discovery.messages.js';
import { gatedCallParameter, type GatedCallParameter } from './gated-call.parameter.js';
import { McpAppEnhancers } from './app-enhancers.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';

type Method = (...args: unknown[]) => unknown;

/** The call's arguments as the method gets them (after the pipes), from the method's parameters. */
type PipedInput = (call: WorkflowCall, params: unknown[]) => Record<string, unknown>;

/**
 * How to read a method's piped arguments from its parameters: a `@McpArgs()` parameter
 * replaces them whole, a `@McpArgs('name')` parameter replaces one of them; a method without
 * either sees the validated arguments.
 */
function pipedInput(metatype: Function, methodName: string): PipedInput {
  const metadata = (Reflect.getMetadata(ROUTE_ARGS_METADATA, metatype, methodName) ?? {}) as Record<string, McpParamMetadata>;
  const params = Object.entries(metadata)
    .filter(([key]) => key.startsWith(`${McpParamtype.ARGS}:`))
    .map(([, param]) => param)
    .sort((a, b) => Number(a.data !== undefined) - Number(b.data !== undefined));
  if (params.length === 0) {
    return (call) => call.args;
  }
  return (call, values) => {
    let input = call.args;
    for (const { index, data } of params) {
      const value = values[index];
      if (data === undefined) {
        input = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : input;
      } else {
        input = { ...input, [data]: value };
      }
    }
    return input;
  };
}

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
    private readonly gate: WorkflowGate,
    private readonly enhancers: McpAppEnhancers,
    @Inject(MCP_DISCOVERY_OPTIONS) private readonly options: McpDiscoveryOptions,
  ) {}

  /** The invoker of the method at `site`, whose part in a workflow is `role` (an ungated method's pipeline never enters the gate). */
  create({ wrapper, metatype, methodName, method, source }: McpHandlerSite, role: McpHandlerRole): McpToolInvoker {
    const intercepted = this.enhancers.intercepts(metatype, method);
    const input = pipedInput(metatype, methodName);
    // A gated method's stand-in finds its call among its parameters.
    const parameter = role.kind === 'ungated' ? undefined : gatedCallParameter(metatype, methodName, source);
    const callback = !parameter
      ? method
      : intercepted
        ? this.withGateInterceptor(method, input, parameter)
        : this.withGateAround(method, input, parameter);
    const metadataKey = parameter?.metadataKey;
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const run = this.handlers.create(wrapper.instance as object, callback, methodName, undefined, undefined, metadataKey);
      return (args) => run(...args);
    }
    if (!this.options.allowRequestScoped) {
      throw new Error(messages.requestScopedRefused(source));
    }
    return async (args) => {
      const contextId = createContextId();
      const call = args[2] as WorkflowCall;
      this.moduleRef.registerRequestByContextId({ args: call.args, context: call.context }, contextId);
      const instance = await this.moduleRef.resolve(metatype, contextId, { strict: false });
      return this.handlers.create(instance as object, callback, methodName, contextId, wrapper.id, metadataKey)(...args);
    };
  }

  /**
   * A stand-in for the method with all of its metadata plus the gate, first among the
   * method's interceptors: every guard runs before the gate claims anything, and the
   * method's own interceptors and pipes run inside the claim.
   */
  private withGateInterceptor(method: Method, input: PipedInput, parameter: GatedCallParameter): Method {
    const gate = this.gate;
    const callback = this.standIn(method, function (this: unknown, ...params: unknown[]) {
      const { call, own } = parameter.split(params);
      // A call that waits for a second person's approval answers that instead of running the method.
      return gate.decideWith(call, input(call, own)).then((waiting) => waiting ?? method.apply(this, own));
    });
    const interceptors = Reflect.getMetadata(INTERCEPTORS_METADATA, method) ?? [];
    Reflect.defineMetadata(INTERCEPTORS_METADATA, [this.gate, ...interceptors], callback);
    return callback;
  }

  /** A stand-in for a method without interceptors: the gate runs around it, after guards and pipes. */
  private withGateAround(method: Method, input: PipedInput, parameter: GatedCallParameter): Method {
    const gate = this.gate;
    return this.standIn(method, function (this: unknown, ...params: unknown[]) {
      const { call, own } = parameter.split(params);
      return gate.handle(call, () => method.apply(this, own), input(call, own));
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
