import { Inject, Injectable, type InjectionToken } from '@nestjs/common';
import { MODULE_METADATA, PARAMTYPES_METADATA, PROPERTY_DEPS_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { NestContainer } from '@nestjs/core/injector/container.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { Module } from '@nestjs/core/injector/module.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../options/mcp-resolved-options.interface.js';
import * as messages from './discovery.messages.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';

/** One McpModule of the app. */
interface McpServerEntry {
  id: string;
  module: Module;
  options: McpResolvedOptions;
}

/** The modules each module declares in its `imports` (global modules are not implied). */
type ImportGraph = Map<Module, Module[]>;

/**
 * Which MCP server of the app serves a provider's tools, prompts and resources. With one
 * McpModule, it serves them all, wherever they are. With several: the server a handler names
 * (`{ server }` on its decorator, else `@ServedBy` on its class); else the server whose
 * McpModule is nearest to the provider's module in the declared imports (its own module
 * imports it: distance 0; a module imported by such a module: 1; and so on), a tie being an
 * error; else the one global McpModule, if there is one. Also refuses, at bootstrap, several
 * servers that would share what must be theirs alone (an id, an HTTP path, stdio, the
 * injection of their exports).
 */
@Injectable()
export class McpServerScope {
  private servers: McpServerEntry[] = [];
  private readonly nearest = new Map<Module, string[]>();

  constructor(
    private readonly modules: ModulesContainer,
    private readonly accessor: McpMetadataAccessor,
    private readonly scanner: MetadataScanner,
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
  ) {}

  /** Finds the app's McpModules and the modules nearest to each; call once, when the modules are initialised. */
  async load(): Promise<void> {
    this.servers = [...this.modules.values()]
      .filter((module) => module.providers.has(McpServerScope))
      .map((module) => {
        const options = module.providers.get(MCP_RESOLVED_OPTIONS)!.instance as McpResolvedOptions;
        return { id: options.server.serverId, module, options };
      });
    if (this.servers.length < 2) {
      return;
    }
    this.checkServers();
    const graph = await this.importGraph();
    this.measure(graph);
    this.checkInjections(graph);
  }

  /** Whether this module's server serves the handler `source` of `wrapper` (`server`: the one its decorator names). */
  serves(wrapper: InstanceWrapper, metatype: Function, source: string, server?: string): boolean {
    return this.serverOf(wrapper, metatype, source, server) === this.options.server.serverId;
  }

  private serverOf(wrapper: InstanceWrapper, metatype: Function, source: string, named?: string): string {
    const ids = this.servers.map((server) => server.id);
    const server = named ?? this.accessor.getServer(metatype);
    if (server !== undefined) {
      if (!ids.includes(server)) {
        throw new Error(messages.unknownServer(source, server, ids));
      }
      return server;
    }
    if (this.servers.length < 2) {
      return this.options.server.serverId;
    }
    const module = wrapper.host;
    const nearest = (module && this.nearest.get(module)) || [];
    if (nearest.length > 1) {
      throw new Error(messages.ambiguousServer(source, module!.name, nearest));
    }
    const fallback = nearest[0] ?? this.servers.find((entry) => entry.module.isGlobal)?.id;
    if (fallback === undefined) {
      throw new Error(messages.unreachableServer(source, module?.name ?? '(none)', ids));
    }
    return fallback;
  }

  /** Ids, paths and stdio are each one server's. */
  private checkServers(): void {
    const byId = new Set<string>();
    const byPath = new Map<string, string>();
    let stdio: string | undefined;
    for (const { id, options } of this.servers) {
      if (byId.has(id)) {
        throw new Error(messages.duplicateServerId(id));
      }
      byId.add(id);
      const path = options.http?.path;
      if (path !== undefined) {
        const other = byPath.get(path);
        if (other !== undefined) {
          throw new Error(messages.duplicateServerPath(path, other, id));
        }
        byPath.set(path, id);
      }
      if (options.stdio) {
        if (stdio !== undefined) {
          throw new Error(messages.severalStdioServers(stdio, id));
        }
        stdio = id;
      }
    }
    const global = this.servers.filter((server) => server.module.isGlobal);
    if (global.length > 1) {
      throw new Error(messages.severalGlobalServers(global.map((server) => server.id)));
    }
  }

  /**
   * The declared imports of every module. Nest adds every global module to each module's
   * `imports`, so they are compiled again from the metadata, as Nest's scanner does.
   */
  private async importGraph(): Promise<ImportGraph> {
    const graph: ImportGraph = new Map();
    for (const module of this.modules.values()) {
      const container = (module as unknown as { container: NestContainer }).container;
      const declared: unknown[] = [
        ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, module.metatype) as unknown[] | undefined) ?? []),
        ...((container.getDynamicMetadataByToken(module.token, MODULE_METADATA.IMPORTS as 'imports') as unknown[] | undefined) ?? []),
      ];
      const related: Module[] = [];
      for (const entry of declared) {
        if (!entry) continue;
        const { token } = await container.getModuleCompiler().compile(entry as Parameters<ReturnType<NestContainer['getModuleCompiler']>['compile']>[0]);
        const ref = this.modules.get(token);
        if (ref) related.push(ref);
      }
      graph.set(module, related);
    }
    return graph;
  }

  /** For each module, the servers at the least distance from it (breadth first from the modules that import each McpModule). */
  private measure(graph: ImportGraph): void {
    const serverModules = new Set(this.servers.map((server) => server.module));
    const distances = new Map<Module, Map<string, number>>();
    for (const server of this.servers) {
      let level = [...graph].filter(([, related]) => related.includes(server.module)).map(([module]) => module);
      const seen = new Set(level);
      for (let distance = 0; level.length; distance += 1) {
        const next: Module[] = [];
        for (const module of level) {
          const byServer = distances.get(module) ?? new Map<string, number>();
          byServer.set(server.id, distance);
          distances.set(module, byServer);
          for (const related of graph.get(module) ?? []) {
            if (!seen.has(related) && !serverModules.has(related)) {
              seen.add(related);
              next.push(related);
            }
          }
        }
        level = next;
      }
    }
    for (const [module, byServer] of distances) {
      const least = Math.min(...byServer.values());
      this.nearest.set(module, [...byServer].filter(([, distance]) => distance === least).map(([id]) => id));
    }
    for (const server of this.servers) {
      this.nearest.set(server.module, [server.id]);
    }
  }

  /**
   * A provider or controller that injects an McpModule export gets it from the McpModule its
   * module imports, else from the global one: refused when that is ambiguous (its module imports
   * several), or when it is not the server that serves the provider's own handlers.
   */
  private checkInjections(graph: ImportGraph): void {
    const exported = this.servers[0].module.exports;
    const byModule = new Map(this.servers.map((server) => [server.module, server.id]));
    const global = this.servers.find((server) => server.module.isGlobal)?.id;
    for (const [module, related] of graph) {
      if (byModule.has(module)) {
        continue;
      }
      const imported = related.filter((ref) => byModule.has(ref)).map((ref) => byModule.get(ref)!);
      const injected = imported.length ? imported[0] : global;
      for (const wrapper of [...module.providers.values(), ...module.controllers.values()]) {
        const token = dependenciesOf(wrapper).find((dependency) => exported.has(dependency));
        if (token === undefined) {
          continue;
        }
        if (imported.length > 1) {
          throw new Error(messages.ambiguousInjection(wrapper.name, module.name, tokenName(token), imported));
        }
        const served = this.servedBy(wrapper);
        if (served !== undefined && injected !== undefined && served !== injected) {
          throw new Error(messages.injectionFromOtherServer(wrapper.name, module.name, tokenName(token), served, injected));
        }
      }
    }
  }

  /** The server of a provider class with handlers (`undefined` without, or when it is decided per method). */
  private servedBy(wrapper: InstanceWrapper): string | undefined {
    const metatype = wrapper.metatype as Function | null;
    if (!metatype?.prototype || wrapper.inject || wrapper.isAlias) {
      return undefined;
    }
    const handlers = this.scanner
      .getAllMethodNames(metatype.prototype)
      .map((name) => metatype.prototype[name] as (...args: unknown[]) => unknown)
      .map((method) => this.accessor.getTool(method) ?? this.accessor.getPrompt(method) ?? this.accessor.getResource(method))
      .filter((options) => options !== undefined);
    if (!handlers.length || handlers.some((options) => options.server !== undefined)) {
      return undefined;
    }
    try {
      return this.serverOf(wrapper, metatype, metatype.name);
    } catch {
      // The explorer reports an unassignable handler with its method's name.
      return undefined;
    }
  }
}

/** The tokens a provider's constructor, properties or factory inject. */
function dependenciesOf(wrapper: InstanceWrapper): InjectionToken[] {
  const unwrap = (token: unknown): InjectionToken => {
    const forward = token as { forwardRef?: () => InjectionToken };
    return (typeof forward?.forwardRef === 'function' ? forward.forwardRef() : token) as InjectionToken;
  };
  if (wrapper.inject) {
    return wrapper.inject.map((entry) => unwrap(typeof entry === 'object' && entry !== null && 'token' in entry ? entry.token : entry));
  }
  const metatype = wrapper.metatype as Function | null;
  if (!metatype || wrapper.isAlias || typeof metatype !== 'function') {
    return [];
  }
  const params = [...((Reflect.getMetadata(PARAMTYPES_METADATA, metatype) as unknown[] | undefined) ?? [])];
  for (const { index, param } of (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, metatype) as { index: number; param: unknown }[] | undefined) ?? []) {
    params[index] = param;
  }
  const properties = ((Reflect.getMetadata(PROPERTY_DEPS_METADATA, metatype) as { type: unknown }[] | undefined) ?? []).map(({ type }) => type);
  return [...params, ...properties].filter((token) => token !== undefined).map(unwrap);
}

/** A token as a message names it. */
function tokenName(token: InjectionToken): string {
  return typeof token === 'function' ? token.name : typeof token === 'symbol' ? (token.description ?? String(token)) : String(token);
}
