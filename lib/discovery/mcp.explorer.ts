import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { z } from 'zod';
import type { McpPromptOptions } from '../decorators/mcp-prompt.decorator.js';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import { combineRequirements, isScopeToken, type McpAccessRequirement } from '../access/access-requirement.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { isStateRole } from '../registry/mcp-handler-role.js';
import { McpApprovalToolsFactory } from './approval-tools.factory.js';
import * as messages from './discovery.messages.js';
import { McpInvokerFactory, type McpHandlerSite } from './mcp-invoker.factory.js';
import { outputJsonSchema } from './output-json-schema.js';
import { providerClasses } from './provider-classes.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { McpServerScope } from './mcp-server-scope.js';
import { McpWorkflowRoles, type McpWorkflowRole } from './mcp-workflow-roles.js';
import { WorkflowResourcesFactory } from './workflow-resources.factory.js';

type Method = (...args: unknown[]) => unknown;

/** The tool names MCP allows (SEP-986). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Finds the `@McpTool`, `@McpPrompt` and `@McpResource` methods this server serves (every
 * provider's, with one McpModule in the app; see {@link McpServerScope} with several) and
 * turns them into validated definitions; throws on the first definition error, naming class,
 * method and decorator.
 */
@Injectable()
export class McpExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly roles: McpWorkflowRoles,
    private readonly invokers: McpInvokerFactory,
    private readonly tools: McpToolRegistry,
    private readonly primitives: McpPrimitiveRegistry,
    private readonly workflowResources: WorkflowResourcesFactory,
    private readonly scope: McpServerScope,
    private readonly machines: McpMachineRegistry,
    private readonly approvalTools: McpApprovalToolsFactory,
    @Inject(MCP_SERVER_IDENTITY) private readonly server: McpServerIdentity,
  ) {}

  onModuleInit(): void {
    this.scope.load();
    const found = this.explore();
    this.tools.register(found.tools);
    this.warnUnstartable(found.tools);
    const resources = [...found.resources, ...this.workflowResources.create()];
    this.assertUnique('Resource', resources, (resource) => resource.name);
    this.assertUnique('Resource URI', resources, (resource) => resource.uri ?? resource.template!.toString());
    this.primitives.register(found.prompts, resources);
  }

  /** The server's tools, prompts and resources, validated (resources are checked for unique names and URIs with the workflow resources, by `onModuleInit`). */
  explore(): { tools: McpToolDefinition[]; prompts: McpPromptDefinition[]; resources: McpResourceDefinition[] } {
    const tools: McpToolDefinition[] = [];
    const prompts: McpPromptDefinition[] = [];
    const resources: McpResourceDefinition[] = [];
    for (const site of this.sites()) {
      const tool = this.accessor.getTool(site.method);
      const prompt = this.accessor.getPrompt(site.method);
      const resource = this.accessor.getResource(site.method);
      if ([tool, prompt, resource].filter(Boolean).length > 1) {
        throw new Error(messages.severalKinds(site.source));
      }
      if (tool) {
        const defined = this.defineTool(site, tool);
        tools.push(defined, ...this.approvalTools.create(defined, this.accessor.getApproval(site.method)));
      }
      if (prompt) prompts.push(this.definePrompt(site, prompt));
      if (resource) resources.push(this.defineResource(site, resource));
    }
    this.assertUnique('Tool', tools, (tool) => tool.name);
    this.assertUnique('Prompt', prompts, (prompt) => prompt.name);
    return { tools, prompts, resources };
  }

  /** A handle-keyed machine without a start tool boots, but nothing can create its instances. */
  private warnUnstartable(tools: readonly McpToolDefinition[]): void {
    const started = new Set(tools.map(({ role }) => role.kind === 'start' && role.machine));
    for (const id of this.machines.ids()) {
      const key = this.machines.machine(id).stateHandleKey;
      if (key && !started.has(id)) {
        this.logger.warn(messages.noStartTool(this.server.serverId, id, key));
      }
    }
  }

  /**
   * Every decorated method of the provider classes this server serves, once: a class provided
   * in several modules is served from the first of them this server serves.
   */
  private *sites(): Generator<McpHandlerSite> {
    const seen = new Set<Function>();
    for (const { wrapper, metatype } of providerClasses(this.discovery)) {
      if (seen.has(metatype)) {
        continue;
      }
      const sites: McpHandlerSite[] = [];
      for (const methodName of this.scanner.getAllMethodNames(metatype.prototype)) {
        const method = metatype.prototype[methodName] as Method;
        const source = `${metatype.name}.${methodName}`;
        const primitive = this.accessor.getPrimitive(method);
        if (primitive && this.scope.serves(wrapper, metatype, source, primitive.server)) {
          sites.push({ wrapper, metatype, methodName, method, source });
        }
      }
      if (sites.length) {
        this.scope.checkInjections(wrapper, metatype);
        seen.add(metatype);
        yield* sites;
      }
    }
  }

  private defineTool(site: McpHandlerSite, options: McpToolOptions): McpToolDefinition {
    const { source } = site;
    if (!options.name || !options.description) {
      throw new Error(messages.toolNeedsNameAndDescription(source));
    }
    if (!TOOL_NAME.test(options.name)) {
      throw new Error(messages.toolNameInvalid(source, options.name));
    }
    const schema = options.inputSchema ?? z.object({});
    if (!(schema instanceof z.ZodObject)) {
      throw new Error(messages.inputSchemaNotObject(source));
    }
    const { workflow, role, inputSchema } = this.roles.resolve('tool', source, site.metatype, site.method, schema);
    const outputSchema = this.toolOutputSchema(source, options, role.kind === 'start' ? role.handleKey : undefined);
    return {
      kind: 'tool',
      name: options.name,
      title: options.title,
      description: options.description,
      compactDescription: options.compactDescription,
      annotations: options.annotations,
      ...(options.task === undefined ? {} : { taskSupport: options.task, taskAfterInput: options.taskAfterInput ?? false }),
      inputSchema,
      outputSchema,
      inputJsonSchema: z.toJSONSchema(inputSchema, { io: 'input' }) as Record<string, unknown>,
      outputJsonSchema: outputSchema ? outputJsonSchema(outputSchema) : undefined,
      workflow,
      role,
      access: this.access(site),
      source,
      invoke: this.invokers.create(site, role),
    };
  }

  private definePrompt(site: McpHandlerSite, options: McpPromptOptions): McpPromptDefinition {
    const { source } = site;
    if (!options.name) {
      throw new Error(messages.needsName(source, '@McpPrompt'));
    }
    const schema = options.argsSchema ?? z.object({});
    if (!(schema instanceof z.ZodObject)) {
      throw new Error(messages.inputSchemaNotObject(source));
    }
    const resolved = this.roles.resolve('prompt', source, site.metatype, site.method, schema);
    const { inputSchema } = resolved;
    for (const [name, field] of Object.entries(inputSchema.shape)) {
      if (!takesString(field as z.ZodType)) {
        throw new Error(messages.promptArgumentNotString(source, name));
      }
    }
    return {
      kind: 'prompt',
      name: options.name,
      title: options.title,
      description: options.description,
      arguments: Object.entries(inputSchema.shape).map(([name, field]) => ({
        name,
        description: (field as z.ZodType).description,
        required: !(field as z.ZodType).safeParse(undefined).success,
      })),
      completers: options.complete ?? {},
      ...this.gatedParts(site, resolved),
    };
  }

  private defineResource(site: McpHandlerSite, options: McpResourceOptions): McpResourceDefinition {
    const { source } = site;
    if (!options.name) {
      throw new Error(messages.needsName(source, '@McpResource'));
    }
    const uri = 'uri' in options ? options.uri : undefined;
    const uriTemplate = 'uriTemplate' in options ? options.uriTemplate : undefined;
    if ((uri === undefined) === (uriTemplate === undefined)) {
      throw new Error(messages.resourceNeedsOneUri(source));
    }
    const template = uriTemplate === undefined ? undefined : this.parseTemplate(source, uriTemplate);
    const variables = template?.variableNames ?? [];
    const argsSchema = 'argsSchema' in options ? options.argsSchema : undefined;
    const schema = argsSchema ?? z.object(Object.fromEntries(variables.map((name) => [name, z.string()])));
    const resolved = this.roles.resolve('resource', source, site.metatype, site.method, schema);
    const { role } = resolved;
    const handleKey = isStateRole(role) ? this.roles.handleKey(role.machine) : undefined;
    if (isStateRole(role) && handleKey && !variables.includes(handleKey)) {
      throw new Error(messages.resourceNeedsHandleVariable(source, role.machine, handleKey));
    }
    return {
      kind: 'resource',
      name: options.name,
      title: options.title,
      description: options.description,
      mimeType: options.mimeType,
      uri,
      template,
      completers: ('complete' in options ? options.complete : undefined) ?? {},
      ...this.gatedParts(site, resolved),
    };
  }

  /** The fields of a prompt or resource that the gate reads. */
  private gatedParts(site: McpHandlerSite, { workflow, role, inputSchema }: McpWorkflowRole) {
    return {
      workflow,
      role,
      access: this.access(site),
      inputSchema,
      source: site.source,
      invoke: this.invokers.create(site, role),
    } satisfies Partial<McpHandlerDefinition>;
  }

  /** What `@McpRequire` on the class and the method ask together; each scope checked to be one OAuth allows. */
  private access(site: McpHandlerSite): McpAccessRequirement | undefined {
    const [onClass, onMethod] = this.accessor.getRequire(site.metatype, site.method);
    for (const scope of [...(onClass?.scopes ?? []), ...(onMethod?.scopes ?? [])]) {
      if (!isScopeToken(scope)) {
        throw new Error(messages.scopeInvalid(site.source, scope));
      }
    }
    const access = combineRequirements(onClass, onMethod);
    return access && (access.scopes.length > 0 || access.roles.length > 0) ? access : undefined;
  }

  private parseTemplate(source: string, uriTemplate: string): UriTemplate {
    try {
      return new UriTemplate(uriTemplate);
    } catch (error) {
      throw new Error(messages.invalidUriTemplate(source, uriTemplate, error instanceof Error ? error.message : String(error)), {
        cause: error,
      });
    }
  }

  private toolOutputSchema(source: string, options: McpToolOptions, handleKey?: string): z.ZodObject | undefined {
    const schema = options.outputSchema;
    if (!schema) {
      return undefined;
    }
    if (!(schema instanceof z.ZodObject)) {
      throw new Error(messages.outputSchemaNotObject(source));
    }
    return handleKey && !(handleKey in schema.shape) ? schema.extend({ [handleKey]: z.string() }) : schema;
  }

  private assertUnique<T extends { source: string }>(what: string, items: T[], keyOf: (item: T) => string): void {
    const byKey = new Map<string, T>();
    for (const item of items) {
      const key = keyOf(item);
      const other = byKey.get(key);
      if (other) {
        throw new Error(
          what === 'Tool'
            ? messages.duplicateTool(key, other.source, item.source)
            : messages.duplicateName(what, key, other.source, item.source),
        );
      }
      byKey.set(key, item);
    }
  }
}

/** Whether a prompt argument's schema takes a string (a string, a string enum or literal), optional or not. */
function takesString(field: z.ZodType): boolean {
  const json = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as { type?: unknown; enum?: unknown[]; const?: unknown };
  return (
    json.type === 'string' ||
    typeof json.const === 'string' ||
    (Array.isArray(json.enum) && json.enum.every((value) => typeof value === 'string'))
  );
}
