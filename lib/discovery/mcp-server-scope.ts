import { Inject, Injectable } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { InstanceWrapper, NestModuleRef } from '../nest-internals.js';
import { MCP_HTTP_OPTIONS, type McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { MCP_STDIO_OPTIONS, type McpResolvedStdioOptions } from '../transports/stdio-options.interface.js';
import * as messages from './discovery.messages.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';

/** One McpModule of the app. */
interface McpServerEntry {
  id: string;
  /** Its Nest modules: the core (where this scope is), and those that import it (the McpModule the app imports, the feature modules). */
  modules: ReadonlySet<NestModuleRef>;
  options: McpServerScopeOptions;
}

/** The options of one McpModule that must be its own: its id, its HTTP path, stdio. */
interface McpServerScopeOptions {
  server: McpServerIdentity;
  http: McpResolvedHttpOptions | null;
  stdio: McpResolvedStdioOptions | null;
}

/**
 * Which MCP server of the app serves a provider's tools, prompts and resources. With one
 * McpModule, it serves them all, wherever they are. With several, each handler is served by
 * the server it names (`{ server }` on its decorator, else `@McpServedBy` on its class), and a
 * handler that names none is a bootstrap error. Also refuses, at bootstrap, several servers
 * that would share what must be theirs alone (an id, an HTTP path, stdio), and a provider
 * that Nest gave another server's exports than the one serving its handlers.
 */
@Injectable()
export class McpServerScope {
  private servers: McpServerEntry[] = [];
  private readonly options: McpServerScopeOptions;

  constructor(
    private readonly modules: ModulesContainer,
    private readonly accessor: McpMetadataAccessor,
    private readonly scanner: MetadataScanner,
    @Inject(MCP_SERVER_IDENTITY) server: McpServerIdentity,
    @Inject(MCP_HTTP_OPTIONS) http: McpResolvedHttpOptions | null,
    @Inject(MCP_STDIO_OPTIONS) stdio: McpResolvedStdioOptions | null,
  ) {
    this.options = { server, http, stdio };
  }

  /** Finds the app's McpModules; call once, when the modules are initialised. */
  load(): void {
    const all = [...this.modules.values()];
    this.servers = all
      .filter((core) => core.providers.has(McpServerScope))
      .map((core) => {
        const { options } = core.providers.get(McpServerScope)!.instance as McpServerScope;
        const modules = new Set([core, ...all.filter((module) => module.imports.has(core))]);
        return { id: options.server.serverId, modules, options };
      });
    if (this.servers.length > 1) {
      this.checkServers();
    }
  }

  /** Whether this module's server serves the handler `source` of `wrapper` (`server`: the one its decorator names). */
  serves(wrapper: InstanceWrapper, metatype: Function, source: string, server?: string): boolean {
    const ids = this.servers.map((entry) => entry.id);
    const named = server ?? this.accessor.getServer(metatype);
    if (named !== undefined) {
      if (!ids.includes(named)) {
        throw new Error(messages.unknownServer(source, named, ids));
      }
      return named === this.options.server.serverId;
    }
    if (this.servers.length < 2) {
      return true;
    }
    const module = wrapper.host;
    const imported = this.servers.filter((entry) => !isGlobal(entry) && [...entry.modules].some((part) => module?.imports.has(part)));
    throw new Error(
      messages.unroutedHandler(source, metatype.name, ids, module?.name ?? '(none)', imported.length === 1 ? imported[0]!.id : undefined),
    );
  }

  /**
   * Refuses a provider whose handlers are all served by this server but which Nest gave an
   * export of another server's McpModule (its module imports that one first, or only the other
   * one is global): its `McpWorkflowService` would read the other server's store.
   */
  checkInjections(wrapper: InstanceWrapper, metatype: Function): void {
    if (this.servers.length < 2 || this.namesServerPerMethod(metatype)) {
      return;
    }
    // Nest records what it resolved each dependency to; a provider without dependencies has no record.
    const dependencies = [
      ...(wrapper.getCtorMetadata() ?? []),
      ...(wrapper.getPropertiesMetadata() ?? []).map((property) => property.wrapper),
    ];
    for (const dependency of dependencies) {
      const from = dependency?.host && this.servers.find((entry) => entry.modules.has(dependency.host!));
      if (from && from.id !== this.options.server.serverId) {
        const module = wrapper.host?.name ?? '(none)';
        throw new Error(
          messages.injectionFromOtherServer(metatype.name, module, dependency.name, this.options.server.serverId, from.id, isGlobal(from)),
        );
      }
    }
  }

  /** Whether a method of the class names its own server (then the class serves several, and is not checked as a whole). */
  private namesServerPerMethod(metatype: Function): boolean {
    return this.scanner
      .getAllMethodNames(metatype.prototype)
      .map((name) => metatype.prototype[name] as (...args: unknown[]) => unknown)
      .some((method) => this.accessor.getPrimitive(method)?.server !== undefined);
  }

  /** Ids, paths and stdio are each one server's; at most one McpModule is global. */
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
    const global = this.servers.filter(isGlobal);
    if (global.length > 1) {
      throw new Error(messages.severalGlobalServers(global.map((server) => server.id)));
    }
  }
}

/** Whether the McpModule of `server` is global (`isGlobal`, true by default). */
function isGlobal(server: McpServerEntry): boolean {
  return [...server.modules].some((module) => module.isGlobal);
}
