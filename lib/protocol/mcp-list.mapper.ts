import { Inject, Injectable } from '@nestjs/common';
import { permits, type McpGrants } from '../access/access-requirement.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import type { McpMenuEntry } from '../sessions/menu-visibility.js';
import { handleRetention } from './protocol.messages.js';

/** Every tool, prompt and resource as the 2026-07-28 era lists them. */
interface McpCatalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

/** Maps the definitions a menu shows to the entries of the SDK's list results (`tools/list`, `prompts/list`, …). */
@Injectable()
export class McpListMapper {
  /** Each tool as a session's `tools/list` shows it, in full and compact; definitions do not change while the server runs. */
  private readonly shown = { full: new Map<McpToolDefinition, Tool>(), compact: new Map<McpToolDefinition, Tool>() };
  /** Each menu's tools as `tools/list` returns them, by the menu's entries (one per distinct view, see `McpMenuVisibility.menu`). */
  private readonly listed = new WeakMap<readonly McpMenuEntry[], readonly Tool[]>();
  /** Each tool as the 2026-07-28 era lists it, for lists that vary by caller. */
  private readonly catalogued = new Map<McpToolDefinition, Tool>();
  private built?: { tools: readonly McpToolDefinition[]; resources: readonly McpResourceDefinition[]; catalog: McpCatalog };
  private varies?: {
    tools: readonly McpToolDefinition[];
    prompts: readonly McpPromptDefinition[];
    resources: readonly McpResourceDefinition[];
    any: boolean;
  };

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly toolRegistry: McpToolRegistry,
    private readonly primitives: McpPrimitiveRegistry,
  ) {}

  /**
   * The tools of a session's menu as `tools/list` returns them: mapped once per menu, and the
   * same (frozen) list for every session that is shown that menu.
   */
  tools(entries: readonly McpMenuEntry[]): Tool[] {
    let tools = this.listed.get(entries);
    if (!tools) {
      tools = Object.freeze(
        entries.map(({ tool, compact }) => {
          const shown = compact ? this.shown.compact : this.shown.full;
          let listed = shown.get(tool);
          if (!listed) {
            listed = this.tool(tool, compact, false);
            shown.set(tool, listed);
          }
          return listed;
        }),
      );
      this.listed.set(entries, tools);
    }
    // The SDK only serializes the list result; nothing may change the shared list (it is frozen).
    return tools as Tool[];
  }

  /** Prompts as `prompts/list` returns them. */
  prompts(prompts: readonly McpPromptDefinition[]): Prompt[] {
    return prompts.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));
  }

  /** The fixed resources among `resources`, as `resources/list` returns them. */
  resources(resources: readonly McpResourceDefinition[]): Resource[] {
    return resources.flatMap((r) => (r.uri === undefined ? [] : [{ uri: r.uri, ...this.resourceFields(r) }]));
  }

  /** The resource templates among `resources`, as `resources/templates/list` returns them. */
  resourceTemplates(resources: readonly McpResourceDefinition[]): ResourceTemplate[] {
    return resources.flatMap((r) => (r.template === undefined ? [] : [{ uriTemplate: r.template.toString(), ...this.resourceFields(r) }]));
  }

  /**
   * Every tool, prompt and resource as the 2026-07-28 era lists them: the same for every
   * caller, in declaration order, calls still gated. A start tool's description says how long
   * its handle stays valid (SEP-2567). Built once: the definitions do not change while the
   * server runs.
   */
  catalog(): McpCatalog {
    const tools = this.toolRegistry.all();
    const resources = this.primitives.resources();
    if (this.built?.tools !== tools || this.built.resources !== resources) {
      this.built = {
        tools,
        resources,
        catalog: {
          tools: tools.map((tool) => this.tool(tool, false, true)),
          prompts: this.prompts(this.primitives.prompts()),
          resources: this.resources(resources),
          resourceTemplates: this.resourceTemplates(resources),
        },
      };
    }
    return this.built.catalog;
  }

  /**
   * The 2026-07-28 lists as a caller holding `grants` sees them: {@link catalog}, without what
   * requires more than it holds (`@McpRequire`). The same for every caller when nothing
   * requires anything (see {@link variesByCaller}).
   */
  catalogFor(grants: McpGrants): McpCatalog {
    if (!this.variesByCaller()) {
      return this.catalog();
    }
    const allowed = <T extends McpHandlerDefinition>(definitions: readonly T[]) =>
      definitions.filter((definition) => permits(definition.access, grants));
    const resources = allowed(this.primitives.resources());
    return {
      tools: allowed(this.toolRegistry.all()).map((tool) => {
        let listed = this.catalogued.get(tool);
        if (!listed) {
          listed = this.tool(tool, false, true);
          this.catalogued.set(tool, listed);
        }
        return listed;
      }),
      prompts: this.prompts(allowed(this.primitives.prompts())),
      resources: this.resources(resources),
      resourceTemplates: this.resourceTemplates(resources),
    };
  }

  /** Whether a tool, prompt or resource requires scopes or roles, so 2026-07-28 lists differ between callers (and are cached privately). */
  variesByCaller(): boolean {
    const tools = this.toolRegistry.all();
    const prompts = this.primitives.prompts();
    const resources = this.primitives.resources();
    if (this.varies?.tools !== tools || this.varies.prompts !== prompts || this.varies.resources !== resources) {
      const any = [...tools, ...prompts, ...resources].some((definition) => definition.access !== undefined);
      this.varies = { tools, prompts, resources, any };
    }
    return this.varies.any;
  }

  /**
   * A tool as a list shows it. A start tool's description says how long its handle stays
   * valid when `statesRetention` (always in the 2026-07-28 era) or when retention is set.
   */
  private tool(tool: McpToolDefinition, compact: boolean, statesRetention: boolean): Tool {
    const { finishedMs, idleHandleMs } = this.options.retention;
    const description = compact ? tool.compactDescription : tool.description;
    const { role } = tool;
    const retention =
      role.kind === 'start' && (statesRetention || finishedMs !== undefined || idleHandleMs !== undefined)
        ? ` ${handleRetention(role.machine, role.handleKey, this.options.retention)}`
        : '';
    return {
      name: tool.name,
      title: tool.title,
      description: `${description}${retention}`,
      inputSchema: tool.inputJsonSchema as Tool['inputSchema'],
      outputSchema: tool.outputJsonSchema as Tool['outputSchema'],
      annotations: tool.annotations,
      ...(tool.taskSupport === undefined ? {} : { execution: { taskSupport: tool.taskSupport } }),
    };
  }

  private resourceFields({ name, title, description, mimeType }: McpResourceDefinition) {
    return { name, title, description, mimeType };
  }
}
