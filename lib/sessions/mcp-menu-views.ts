import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import type { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import type { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import type { UnknownStateReporter } from '../gating/unknown-state.reporter.js';
import type { WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import type { McpSession } from './mcp-session.js';
import { McpMenuVisibility, type McpMenuMachine, type McpMenuView } from './menu-visibility.js';

/**
 * What a session's menu is worked out from ({@link of}: the known states of its instances, its
 * grants) and the visibility rules that work it out, over the server's definitions.
 */
export class McpMenuViews {
  private built?: { definitions: readonly (readonly McpHandlerDefinition[])[]; visibility: McpMenuVisibility };

  constructor(
    private readonly menuMachines: ReadonlyMap<string, McpMenuMachine>,
    private readonly toolRegistry: McpToolRegistry,
    private readonly primitives: McpPrimitiveRegistry,
    private readonly unknownStates: UnknownStateReporter,
    private readonly handleToolsMenu: WorkflowGateOptions['handleToolsMenu'],
  ) {}

  /**
   * The visibility rules over the server's definitions, made once they are registered (the
   * explorer fills the registries at bootstrap, after this service is built).
   */
  get visibility(): McpMenuVisibility {
    const definitions = [this.toolRegistry.all(), this.primitives.prompts(), this.primitives.resources()];
    if (!this.built || this.built.definitions.some((list, index) => list !== definitions[index])) {
      const [tools, prompts, resources] = definitions as [McpToolDefinition[], McpPromptDefinition[], McpResourceDefinition[]];
      this.built = {
        definitions,
        visibility: new McpMenuVisibility({
          tools,
          prompts,
          resources,
          machines: this.menuMachines,
          handleToolsMenu: this.handleToolsMenu,
        }),
      };
    }
    return this.built.visibility;
  }

  /**
   * What the session's menu depends on: the distinct known states of its instances of each
   * machine; its session-keyed instance not stored yet counts as in the initial state.
   */
  of(session: McpSession): McpMenuView {
    const states = new Map<string, string[]>();
    for (const [machine, { engine, initial, handleKeyed }] of this.menuMachines) {
      const known: string[] = [];
      if (handleKeyed) {
        for (const state of session.knownStates.statesOf(machine)) {
          if (engine.knows(state)) {
            known.push(state);
          } else {
            this.unknownStates.report(machine, state, session.knownStates.instanceIn(machine, state)!);
          }
        }
      } else {
        const key = session.sessionStoreKey(machine);
        if (key === undefined) {
          continue;
        }
        const state = session.knownStates.get(key) ?? initial;
        if (engine.knows(state)) {
          known.push(state);
        } else {
          this.unknownStates.report(machine, state, key);
        }
      }
      if (known.length > 0) {
        states.set(machine, known);
      }
    }
    return { kind: session.kind, states, grants: session.grants, decisions: session.decisions };
  }

  /** What the session is shown, one string per list kind, to tell which lists changed. */
  signature(session: McpSession): readonly string[] {
    return this.visibility.menu(this.of(session)).signature;
  }
}
