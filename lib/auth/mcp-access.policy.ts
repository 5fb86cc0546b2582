import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { MAX_URI_LENGTH } from '../client-input/client-input.limits.js';
import { MCP_AUTH_OPTIONS, type McpResolvedAuthOptions } from './auth-options.interface.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { judgedByGate, lacksRole, missingScopes, NO_GRANTS, type McpGrants } from '../access/access-requirement.js';
import * as messages from './auth.messages.js';

/** Why a caller may not use a tool, prompt or resource: the scopes its token lacks, or a role it does not hold. */
export interface McpAccessRefusal {
  readonly kind: McpHandlerDefinition['kind'];
  readonly name: string;
  /** The scopes the definition needs that the caller lacks (empty when only a role is missing). */
  readonly missingScopes: readonly string[];
  /** Every scope the definition needs: what a step-up asks for. */
  readonly requiredScopes: readonly string[];
  /** The roles of which the caller holds none, when that is what is missing. */
  readonly missingRoles: readonly string[];
  readonly message: string;
}

/** The JSON-RPC methods whose target may require scopes or roles. */
const TARGETED_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read', 'resources/subscribe']);

/**
 * Who may use what: the grants of a caller (its token's scopes, and the roles `auth.roles`
 * gives it, once per `AuthInfo`), and whether they cover what a tool, prompt or resource
 * requires (`@McpRequire`), for one definition or for the calls in a JSON-RPC body.
 */
@Injectable()
export class McpAccessPolicy {
  private readonly logger = new Logger('McpAuth');
  private readonly grantsByAuth = new WeakMap<AuthInfo, Promise<McpGrants>>();
  private supported?: { from: readonly McpHandlerDefinition[]; scopes: string[] };
  /** The registries' lists, and every definition of them, while the lists stay the same (they are filled once at bootstrap). */
  private all?: { lists: readonly (readonly McpHandlerDefinition[])[]; definitions: readonly McpHandlerDefinition[]; requiresAny: boolean };

  constructor(
    @Inject(MCP_AUTH_OPTIONS) private readonly options: McpResolvedAuthOptions,
    private readonly tools: McpToolRegistry,
    private readonly primitives: McpPrimitiveRegistry,
  ) {}

  /** The grants of a caller; `NO_GRANTS` for an anonymous one. The roles hook runs once per `authInfo`; one that fails gives no roles (logged). */
  grantsOf(authInfo: AuthInfo | undefined): Promise<McpGrants> {
    if (!authInfo) {
      return Promise.resolve(NO_GRANTS);
    }
    let grants = this.grantsByAuth.get(authInfo);
    if (!grants) {
      grants = this.resolveGrants(authInfo);
      this.grantsByAuth.set(authInfo, grants);
    }
    return grants;
  }

  /** Why `grants` do not cover what `definition` requires; `undefined` when they do, or when only the gate can tell (a requester withdrawing). */
  refusal(definition: McpHandlerDefinition, grants: McpGrants): McpAccessRefusal | undefined {
    const { access } = definition;
    if (judgedByGate(access)) {
      return undefined;
    }
    const missing = missingScopes(access, grants);
    if (missing.length > 0) {
      return this.refuse(definition, missing, [], messages.insufficientScope(definition.kind, definition.name, missing));
    }
    if (lacksRole(access, grants)) {
      return this.refuse(definition, [], access!.roles, messages.roleMissing(definition.kind, definition.name, access!.roles));
    }
    return undefined;
  }

  /**
   * The first refusal among the calls of a JSON-RPC body (one message or a batch): a
   * `tools/call`, `prompts/get`, `resources/read` or `resources/subscribe` of something
   * `grants` do not cover. Unknown names and malformed params are left to the handlers.
   */
  refusalInBody(body: unknown, grants: McpGrants): McpAccessRefusal | undefined {
    if (!this.requiresAny()) {
      return undefined;
    }
    for (const message of Array.isArray(body) ? body : [body]) {
      const definition = this.targetOf(message);
      const refusal = definition && this.refusal(definition, grants);
      if (refusal) {
        return refusal;
      }
    }
    return undefined;
  }

  /**
   * The scopes of the definitions the calls of a JSON-RPC body target (what a client without a
   * token is told to ask for, in `scope`), in declaration order.
   */
  scopesInBody(body: unknown): string[] {
    if (!this.requiresAny()) {
      return [];
    }
    const scopes = new Set<string>();
    for (const message of Array.isArray(body) ? body : [body]) {
      for (const scope of this.targetOf(message)?.access?.scopes ?? []) scopes.add(scope);
    }
    return [...scopes];
  }

  /** Whether any tool, prompt or resource requires something: lists then vary by caller. */
  requiresAny(): boolean {
    this.definitions();
    return this.all!.requiresAny;
  }

  /**
   * The scopes the protected-resource metadata lists: `auth.scopesSupported`, then every scope a
   * `@McpRequire` names, each once.
   */
  scopesSupported(): readonly string[] {
    const definitions = this.definitions();
    if (this.supported?.from !== definitions) {
      const scopes = new Set(this.options.scopesSupported);
      for (const definition of definitions) {
        for (const scope of definition.access?.scopes ?? []) scopes.add(scope);
      }
      this.supported = { from: definitions, scopes: [...scopes] };
    }
    return this.supported.scopes;
  }

  private async resolveGrants(authInfo: AuthInfo): Promise<McpGrants> {
    let roles: readonly string[] = [];
    try {
      roles = await this.options.roles(authInfo);
    } catch (error) {
      this.logger.warn(messages.rolesFailed(authInfo.clientId, error instanceof Error ? error.message : String(error)));
    }
    return Object.freeze({ scopes: new Set(authInfo.scopes), roles: new Set(roles) });
  }

  /** The definition a JSON-RPC request targets, when it is one of {@link TARGETED_METHODS} with a name or URI this server has. */
  private targetOf(message: unknown): McpHandlerDefinition | undefined {
    const { method, params } = (typeof message === 'object' && message !== null ? message : {}) as { method?: unknown; params?: unknown };
    if (typeof method !== 'string' || !TARGETED_METHODS.has(method) || typeof params !== 'object' || params === null) {
      return undefined;
    }
    const { name, uri } = params as { name?: unknown; uri?: unknown };
    if (method === 'tools/call') {
      return typeof name === 'string' ? this.tools.get(name) : undefined;
    }
    if (method === 'prompts/get') {
      return typeof name === 'string' ? this.primitives.prompt(name) : undefined;
    }
    return typeof uri === 'string' && uri.length <= MAX_URI_LENGTH ? this.primitives.match(uri)?.resource : undefined;
  }

  private refuse(definition: McpHandlerDefinition, missing: string[], roles: readonly string[], message: string): McpAccessRefusal {
    return {
      kind: definition.kind,
      name: definition.name,
      missingScopes: missing,
      requiredScopes: definition.access?.scopes ?? [],
      missingRoles: roles,
      message,
    };
  }

  private definitions(): readonly McpHandlerDefinition[] {
    const lists = [this.tools.all(), this.primitives.prompts(), this.primitives.resources()];
    if (!this.all || this.all.lists.some((list, index) => list !== lists[index])) {
      const definitions = lists.flat();
      this.all = { lists, definitions, requiresAny: definitions.some((definition) => definition.access !== undefined) };
    }
    return this.all.definitions;
  }
}
