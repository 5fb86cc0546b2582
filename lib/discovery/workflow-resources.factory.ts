import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { toMermaid } from '../diagram/to-mermaid.js';
import type { WorkflowCall } from '../gating/workflow-call.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { MCP_DISCOVERY_OPTIONS, type McpDiscoveryOptions } from './discovery-options.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import * as messages from './discovery.messages.js';

/** MIME type of a Mermaid diagram. */
const MERMAID_MIME_TYPE = 'text/vnd.mermaid';

/**
 * The resources of each workflow (`workflowResources: true`): its diagram, with each
 * transition labelled by the tools that fire it (those the caller may use), and the caller's instance (state, context,
 * allowed tools and the diagram with the state highlighted), read through the gate like any
 * workflow read: unknown or someone else's handles are refused.
 */
@Injectable()
export class WorkflowResourcesFactory {
  constructor(
    @Inject(MCP_DISCOVERY_OPTIONS) private readonly options: McpDiscoveryOptions,
    private readonly machines: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
    private readonly gate: WorkflowGate,
  ) {}

  /** The resources of every machine; none unless the option is on. */
  create(): McpResourceDefinition[] {
    return this.options.workflowResources ? this.machines.ids().flatMap((machine) => [this.diagram(machine), this.instance(machine)]) : [];
  }

  private diagram(machine: string): McpResourceDefinition {
    return {
      kind: 'resource',
      name: `${machine}-workflow`,
      title: messages.workflowDiagramTitle(machine),
      description: messages.workflowDiagramDescription(machine),
      mimeType: MERMAID_MIME_TYPE,
      uri: `workflow://${machine}/diagram`,
      completers: {},
      inputSchema: z.object({}),
      role: { kind: 'ungated' },
      source: `workflowResources(${machine})`,
      invoke: async ([, , call]) =>
        toMermaid(this.machines.machine(machine), { tools: this.tools.allUsableBy((call as WorkflowCall).caller.grants) }),
    };
  }

  private instance(machine: string): McpResourceDefinition {
    const handleKey = this.machines.machine(machine).stateHandleKey;
    const base = `workflow://${machine}/instance`;
    return {
      kind: 'resource',
      name: `${machine}-instance`,
      title: messages.workflowInstanceTitle(machine),
      description: messages.workflowInstanceDescription(machine, handleKey),
      mimeType: 'application/json',
      ...(handleKey ? { template: new UriTemplate(`${base}/{${handleKey}}`) } : { uri: base }),
      completers: {},
      inputSchema: handleKey ? z.object({ [handleKey]: z.string() }) : z.object({}),
      workflow: machine,
      role: { kind: 'read', machine },
      source: `workflowResources(${machine})`,
      invoke: ([, , call]) =>
        this.gate.handle(call as WorkflowCall, ({ snapshot }) => this.describe(machine, call as WorkflowCall, snapshot.state)),
    };
  }

  /** The instance as the call was admitted on it (`stored`: its state as the store holds it), as the resource shows it. */
  private describe(machine: string, call: WorkflowCall, stored: string) {
    const { handle, state, workflowContext } = call.context;
    return {
      machine,
      handle,
      state,
      context: workflowContext ?? null,
      allowedTools: this.tools.usableBy(this.tools.allowedNames(machine, stored), call.caller.grants),
      diagram: toMermaid(this.machines.machine(machine), { tools: this.tools.allUsableBy(call.caller.grants), highlight: stored }),
    };
  }
}
