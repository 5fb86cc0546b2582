import type { McpMachine } from '../machines/machine.interface.js';
import { activeNodes, edgeEventText, graphNodes, isAncestor, machineGraph, pathOf, type DiagramNode } from './machine-graph.js';
import type { McpMermaidTool } from './mermaid-tool.interface.js';
import { startToolsOf, toolsByEdge } from './transition-tools.js';
import { approvalEdges } from './approval-edges.js';

export type { McpMermaidTool } from './mermaid-tool.interface.js';

/** Options of `toMermaid`. */
export interface McpMermaidOptions {
  /**
   * Tools to name on the transitions they fire (and start tools on the initial arrow); tools
   * of other machines are left out.
   * @default []
   */
  tools?: readonly McpMermaidTool[];
  /**
   * A state value as the store holds it (`MachineState.state`: a dotted path such as
   * `'review.legal'`, or JSON for parallel states) whose active state nodes get the class
   * `current`. A value that is no complete configuration of the machine throws.
   */
  highlight?: string;
}

// Words the state diagram grammar reads as keywords (or, for `root`, the id of the document).
const RESERVED_IDS = new Set([
  'state',
  'note',
  'class',
  'classdef',
  'style',
  'click',
  'href',
  'default',
  'scale',
  'statediagram',
  'as',
  'root',
]);

const CURRENT_CLASS = 'classDef current fill:#fde68a,stroke:#b45309,stroke-width:2px';

/**
 * Renders a machine as a Mermaid `stateDiagram-v2`, each transition labelled with its event,
 * its guard and the tools that fire it; pure and synchronous (`xstate` need not be installed
 * for a plain config). What it draws: see docs/primitives.md#how-tomermaid-draws-a-machine.
 *
 * @param machine a machine from `defineMachine`.
 * @param options tools to name on the transitions, and a state value to highlight.
 * @throws when a plain config targets a state it does not have, or `highlight` is no state value of the machine.
 *
 * @example
 * const approve = { name: 'invoice.approve', role: { kind: 'transition', machine: 'invoice', states: ['review'], event: 'APPROVE' } };
 * toMermaid(invoiceMachine, { tools: [approve], highlight: 'review' });
 * // stateDiagram-v2
 * //   [*] --> draft
 * //   draft --> review : SUBMIT
 * //   review --> approved : APPROVE (invoice.approve)
 * //   ...
 */
export function toMermaid(machine: McpMachine, options: McpMermaidOptions = {}): string {
  return new MermaidWriter(machine.id, machineGraph(machine), options).write();
}

class MermaidWriter {
  private readonly nodes: DiagramNode[];
  private readonly order = new Map<DiagramNode, number>();
  private readonly ids = new Map<DiagramNode, string>();
  /** Whether the root is drawn as a composite state (else its block is the document). */
  private readonly wrapped: boolean;
  /** Arrow lines by the block they are written in (`undefined`: the document). */
  private readonly arrows = new Map<DiagramNode | undefined, string[]>();
  /** States that a line of their parent's block names, which need no declaration of their own. */
  private readonly named = new Set<DiagramNode>();
  private readonly lines = ['stateDiagram-v2'];

  constructor(
    private readonly machineId: string,
    private readonly root: DiagramNode,
    private readonly options: McpMermaidOptions,
  ) {
    this.nodes = graphNodes(root);
    this.nodes.forEach((node, index) => this.order.set(node, index));
    this.wrapped =
      root.type === 'parallel' ||
      root.edges.length > 0 ||
      this.nodes.some((node) => node.edges.some((edge) => edge.targets.includes(root)));
    this.assignIds();
  }

  write(): string {
    const startTools = startToolsOf(this.machineId, this.options.tools ?? []);
    this.collectArrows();
    const entry = startTools.length ? ` : ${label(startTools.map(({ name }) => name).join(', '))}` : '';
    if (this.wrapped) {
      this.line(1, `[*] --> ${this.id(this.root)}${entry}`);
      this.declare(this.root, 1);
      this.arrows.get(undefined)?.forEach((arrow) => this.line(1, arrow));
    } else {
      this.block(this.root, 1, entry);
    }
    const highlighted = this.highlighted();
    if (highlighted.length) {
      this.line(1, CURRENT_CLASS);
      this.line(1, `class ${highlighted.map((node) => this.id(node)).join(',')} current`);
    }
    return `${this.lines.join('\n')}\n`;
  }

  /** The contents of a compound state (or of the document): initial arrow, children, arrows, final markers. */
  private block(node: DiagramNode, depth: number, entry = ''): void {
    if (node.initial) {
      this.line(depth, `[*] --> ${this.id(node.initial)}${entry}`);
    }
    for (const child of node.children) {
      this.declare(child, depth);
    }
    this.arrows.get(this.blockOf(node))?.forEach((arrow) => this.line(depth, arrow));
    for (const child of node.children) {
      if (child.type === 'final') {
        this.line(depth, `${this.id(child)} --> [*]`);
      }
    }
  }

  private declare(node: DiagramNode, depth: number): void {
    const id = this.id(node);
    const head = id === node.key ? `state ${id}` : `state "${stateLabel(node.key)}" as ${id}`;
    if (node.children.length === 0) {
      if (id !== node.key) {
        this.line(depth, head);
      } else if (!this.named.has(node)) {
        // Mermaid drops `state x` without a body; a line with the id alone declares it.
        this.line(depth, id);
      }
      return;
    }
    this.line(depth, `${head} {`);
    if (node.type === 'parallel') {
      node.children.forEach((region, index) => {
        if (index > 0) {
          this.line(depth + 1, '--');
        }
        this.declare(region, depth + 1);
        if (region.type === 'final') {
          this.line(depth + 1, `${this.id(region)} --> [*]`);
        }
      });
    } else {
      this.block(node, depth + 1);
    }
    this.line(depth, '}');
  }

  /** Arrow lines, each in the innermost composite state that holds its source and its target. */
  private collectArrows(): void {
    const firing = toolsByEdge(this.root, this.machineId, this.options.tools ?? []);
    for (const source of this.nodes) {
      for (const edge of source.edges) {
        const tools = firing.get(edge);
        const text = label(
          [edgeEventText(edge), edge.guard === undefined ? '' : `[${edge.guard}]`, tools ? `(${tools.join(', ')})` : '']
            .filter(Boolean)
            .join(' '),
        );
        for (const target of edge.targets.length ? edge.targets : [source]) {
          this.arrow(source, target, text);
        }
      }
    }
    this.collectApprovalArrows();
    for (const node of this.nodes) {
      // The initial arrow and the final marker are lines of the parent's block (a region's final marker follows its declaration).
      if (node.initial) {
        this.named.add(node.initial);
      }
      if (node.type === 'final' && node.parent?.type !== 'parallel') {
        this.named.add(node);
      }
    }
  }

  /**
   * The arrows of `@McpApproval` tools, which no event of the machine draws: from each bound state
   * into the waiting state, and from there where the approved event leads, or back (rejected).
   */
  private collectApprovalArrows(): void {
    const tools = this.options.tools ?? [];
    // A decision tool the reader may not use is not named (the diagram resources pass the caller's tools only).
    const shown = (tool: string | undefined, otherwise: string) => (tools.some((other) => other.name === tool) ? tool! : otherwise);
    for (const edge of approvalEdges(this.root, this.machineId, tools)) {
      const text =
        edge.step === 'waits'
          ? `${edge.event} (${edge.tool}, waits for approval)`
          : edge.step === 'approved'
            ? `${edge.event} (${shown(edge.decider, 'approved')})`
            : `(${shown(edge.decider, 'rejected')})`;
      this.arrow(edge.from, edge.to, label(text));
    }
  }

  /** One arrow line, in the innermost composite state that holds both ends. */
  private arrow(source: DiagramNode, target: DiagramNode, text: string): void {
    const block = this.blockOf(this.scopeOf(source, target));
    const lines = this.arrows.get(block) ?? [];
    lines.push(`${this.id(source)} --> ${this.id(target)} : ${text}`);
    this.arrows.set(block, lines);
    for (const end of [source, target]) {
      if (end.parent && this.blockOf(end.parent) === block) {
        this.named.add(end);
      }
    }
  }

  /**
   * The block an arrow is written in: the innermost state that both ends are descendants of
   * (inside its own block, a composite state's id would name a new inner state), and not a
   * parallel one (each of its regions is a block apart); `undefined` for the document.
   */
  private scopeOf(source: DiagramNode, target: DiagramNode): DiagramNode | undefined {
    let scope = source.parent;
    while (scope && !isAncestor(scope, target)) {
      scope = scope.parent;
    }
    while (scope?.type === 'parallel') {
      scope = scope.parent;
    }
    return scope;
  }

  private blockOf(node: DiagramNode | undefined): DiagramNode | undefined {
    return node === this.root && !this.wrapped ? undefined : node;
  }

  /** The active state nodes of `options.highlight`, in document order. */
  private highlighted(): DiagramNode[] {
    const { highlight } = this.options;
    if (highlight === undefined) {
      return [];
    }
    return activeNodes(this.root, this.machineId, highlight).sort((a, b) => this.order.get(a)! - this.order.get(b)!);
  }

  /**
   * Gives every state node a unique Mermaid id: a valid top-level name is its own id (composite
   * states first); every other node, in document order, its qualified name with characters
   * Mermaid does not accept replaced by `_`, and `_2`, `_3`… on a clash. Ids Mermaid makes for
   * `[*]` (`root_start`, `<composite>_end`) are never given.
   */
  private assignIds(): void {
    const taken = new Set(['root_start', 'root_end']);
    const claim = (node: DiagramNode, wanted: string): void => {
      const composite = node.children.length > 0;
      for (let n = 1; ; n++) {
        const id = n === 1 ? wanted : `${wanted}_${n}`;
        if (!taken.has(id) && !(composite && (taken.has(`${id}_start`) || taken.has(`${id}_end`)))) {
          this.ids.set(node, id);
          taken.add(id);
          if (composite) {
            taken.add(`${id}_start`).add(`${id}_end`);
          }
          return;
        }
      }
    };
    const natural = this.root.children.filter((node) => isPlainId(node.key));
    for (const node of [...natural.filter((node) => node.children.length > 0), ...natural.filter((node) => node.children.length === 0)]) {
      claim(node, node.key);
    }
    for (const node of this.nodes) {
      if (!this.ids.has(node) && (node !== this.root || this.wrapped)) {
        const path = node === this.root ? [this.machineId] : pathOf(node);
        const id = path.join('_').replace(/[^A-Za-z0-9_]/g, '_') || '_';
        claim(node, RESERVED_IDS.has(id.toLowerCase()) ? `${id}_` : id);
      }
    }
  }

  private id(node: DiagramNode): string {
    return this.ids.get(node)!;
  }

  private line(depth: number, text: string): void {
    this.lines.push(`${'  '.repeat(depth)}${text}`);
  }
}

function isPlainId(name: string): boolean {
  return /^[A-Za-z0-9_]+$/.test(name) && !RESERVED_IDS.has(name.toLowerCase());
}

/** A state name as a Mermaid state label (between double quotes, which it cannot hold). */
function stateLabel(name: string): string {
  return name.replace(/"/g, '#quot;').replace(/\r?\n|\r/g, ' ');
}

/** Text after ` : ` on an arrow: Mermaid ends it at `;` and a newline, and reads `::` as a class. */
function label(text: string): string {
  return text
    .replace(/;/g, '#59;')
    .replace(/:/g, '#58;')
    .replace(/\r?\n|\r/g, ' ');
}
