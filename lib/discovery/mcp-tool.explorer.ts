import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, createContextId, DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { z, type ZodObject } from 'zod';
import { FsmCall } from '../gating/fsm-call.js';
import { FsmGate } from '../gating/fsm-gate.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import * as messages from './discovery.messages.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import type { McpMachineRef } from '../decorators/machine-ref.type.js';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { McpToolRegistry } from '../tools/mcp-tool.registry.js';
import { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import { isTransactionalFsmStateStore } from '../stores/transactional-fsm-state-store.interface.js';
import type { McpToolBinding, McpToolDefinition, McpToolInvoker, McpToolStart } from '../tools/mcp-tool-definition.interface.js';

type Method = (...args: unknown[]) => unknown;

/** Finds `@McpTool` methods on every provider and turns them into validated tool definitions. */
@Injectable()
export class McpToolExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly handlers: McpHandlerFactory,
    private readonly moduleRef: ModuleRef,
    private readonly machines: McpMachineRegistry,
    private readonly registry: McpToolRegistry,
    private readonly gate: FsmGate,
    private readonly appConfig: ApplicationConfig,
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    @Inject(FsmStateStore) private readonly store: FsmStateStore,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.explore());
  }

  /** All tools, validated; throws on the first definition error, naming class, method and decorator. */
  explore(): McpToolDefinition[] {
    const tools: McpToolDefinition[] = [];
    const seen = new Set<Function>();
    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype as Function | undefined;
      if (!metatype || wrapper.isAlias || wrapper.inject || seen.has(metatype) || !metatype.prototype) {
        continue;
      }
      seen.add(metatype);
      for (const methodName of this.scanner.getAllMethodNames(metatype.prototype)) {
        const method = metatype.prototype[methodName] as Method;
        const options = this.accessor.getTool(method);
        if (options) {
          tools.push(this.define(wrapper, metatype, methodName, method, options));
        }
      }
    }
    this.assertUniqueNames(tools);
    return tools;
  }

  private define(
    wrapper: InstanceWrapper,
    metatype: Function,
    methodName: string,
    method: Method,
    options: McpToolOptions,
  ): McpToolDefinition {
    const source = `${metatype.name}.${methodName}`;
    if (!options.name || !options.description) {
      throw new Error(messages.toolNeedsNameAndDescription(source));
    }
    const classMachine = this.accessor.getWorkflow(metatype);
    const binding = this.resolveBinding(source, method, classMachine);
    const start = this.resolveStart(source, method, classMachine);
    if (binding && start) {
      throw new Error(messages.bindAndStartTogether(source));
    }
    const workflow = binding?.machine ?? start?.machine ?? this.optionalMachineId(source, '@McpWorkflow', classMachine);
    const inputSchema = this.inputSchema(source, options, binding);
    const outputSchema = this.outputSchema(source, options, start);
    const reads = binding || start ? undefined : this.readsMachine(workflow, inputSchema);
    const gated = Boolean(binding || start || reads);
    return {
      name: options.name,
      title: options.title,
      description: options.description,
      compactDescription: options.compactDescription,
      annotations: options.annotations,
      inputSchema,
      outputSchema,
      inputJsonSchema: z.toJSONSchema(inputSchema, { io: 'input' }) as Record<string, unknown>,
      outputJsonSchema: outputSchema
        ? (z.toJSONSchema(outputSchema, { io: 'output' }) as Record<string, unknown>)
        : undefined,
      workflow,
      binding,
      start,
      reads,
      gated,
      source,
      invoke: this.createInvoker(wrapper, metatype, methodName, method, source, gated),
    };
  }

  private resolveBinding(source: string, method: Method, classMachine?: McpMachineRef): McpToolBinding | undefined {
    const meta = this.accessor.getBinding(method);
    if (!meta) {
      return undefined;
    }
    const machine = this.requireMachineId(source, meta.machine ? '@BindState' : '@McpWorkflow', meta.machine ?? classMachine, '@BindState');
    const engine = this.machines.engine(machine);
    const paths = new Set(engine.statePaths());
    for (const state of meta.states) {
      if (!paths.has(state)) {
        throw new Error(messages.unknownState(source, '@BindState', machine, state, [...paths]));
      }
    }
    if (meta.states.length === 0) {
      throw new Error(messages.noStates(source));
    }
    this.assertEvent(source, '@BindState', machine, meta.transition);
    return {
      machine,
      states: meta.states,
      transition: meta.transition,
      transactional: this.transactional(source, '@BindState', meta.transactional),
    };
  }

  private resolveStart(source: string, method: Method, classMachine?: McpMachineRef): McpToolStart | undefined {
    const meta = this.accessor.getStart(method);
    if (!meta) {
      return undefined;
    }
    const machine = this.requireMachineId(source, meta.machine ? '@StartWorkflow' : '@McpWorkflow', meta.machine ?? classMachine, '@StartWorkflow');
    const handleKey = this.machines.machine(machine).stateHandleKey;
    if (!handleKey) {
      throw new Error(messages.startNeedsHandleKey(source, machine));
    }
    this.assertEvent(source, '@StartWorkflow', machine, meta.transition);
    const transactional = this.transactional(source, '@StartWorkflow', meta.transactional);
    return { machine, handleKey, transition: meta.transition, transactional };
  }

  /**
   * The machine an unbound tool of a workflow class reads: a session-keyed machine always (its
   * session's instance), a handle-keyed one when the tool takes the handle argument.
   */
  private readsMachine(workflow: string | undefined, inputSchema: ZodObject): string | undefined {
    if (!workflow) {
      return undefined;
    }
    const key = this.machines.machine(workflow).stateHandleKey;
    return !key || key in inputSchema.shape ? workflow : undefined;
  }

  private transactional(source: string, decorator: string, requested?: boolean): boolean {
    const transactional = requested ?? this.options.transactional;
    if (transactional && !isTransactionalFsmStateStore(this.store)) {
      throw new Error(messages.transactionalNeedsStore(source, decorator, this.store.constructor.name));
    }
    return transactional;
  }

  private assertEvent(source: string, decorator: string, machine: string, event?: string): void {
    const events = this.machines.engine(machine).eventNames();
    if (event !== undefined && !events.includes(event)) {
      throw new Error(messages.unknownEvent(source, decorator, machine, event, events));
    }
  }

  private requireMachineId(source: string, decorator: string, machine: McpMachineRef | undefined, user: string): string {
    const id = this.optionalMachineId(source, decorator, machine);
    if (!id) {
      throw new Error(messages.noMachine(source, user));
    }
    return id;
  }

  private optionalMachineId(source: string, decorator: string, machine?: McpMachineRef): string | undefined {
    if (machine === undefined) {
      return undefined;
    }
    const id = typeof machine === 'string' ? machine : machine.id;
    if (!this.machines.has(id)) {
      throw new Error(messages.unknownMachine(source, decorator, id, this.machines.ids()));
    }
    return id;
  }

  private inputSchema(source: string, options: McpToolOptions, binding?: McpToolBinding): ZodObject {
    const schema = options.inputSchema ?? z.object({});
    if (!(schema instanceof z.ZodObject)) {
      throw new Error(messages.inputSchemaNotObject(source));
    }
    const key = binding && this.machines.machine(binding.machine).stateHandleKey;
    if (!key || key in schema.shape) {
      return schema;
    }
    return schema.extend({ [key]: z.string().describe(messages.handleArgumentDescription(binding.machine)) });
  }

  private outputSchema(source: string, options: McpToolOptions, start?: McpToolStart): McpToolOptions['outputSchema'] {
    const schema = options.outputSchema;
    if (!schema) {
      return undefined;
    }
    if (!(schema instanceof z.ZodObject)) {
      throw new Error(messages.outputSchemaNotObject(source));
    }
    const key = start && this.machines.machine(start.machine).stateHandleKey;
    return key && !(key in schema.shape) ? schema.extend({ [key]: z.string() }) : schema;
  }

  private createInvoker(
    wrapper: InstanceWrapper,
    metatype: Function,
    methodName: string,
    method: Method,
    source: string,
    gated: boolean,
  ): McpToolInvoker {
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

  private assertUniqueNames(tools: McpToolDefinition[]): void {
    const byName = new Map<string, McpToolDefinition>();
    for (const tool of tools) {
      const other = byName.get(tool.name);
      if (other) {
        throw new Error(messages.duplicateTool(tool.name, other.source, tool.source));
      }
      byName.set(tool.name, tool);
    }
  }
}
