import type { AnyStateNode, StateValue } from 'xstate';
import { machineUnknownInitial, machineUnknownTarget, mermaidUnknownHighlight } from '../machines/machines.messages.js';
import type { McpMachine, McpStateNodeConfig } from '../machines/machine.interface.js';
import { decodeStateValue } from '../machines/xstate-state-value.js';
import { guardName, matchesEventDescriptor } from '../machines/xstate-transition-names.js';

/**
 * A tool as `toMermaid` reads it: its name and its part in a workflow. Every
 * `McpToolDefinition` fits, so the tools of `McpToolRegistry` can be passed as they are.
 */
export interface McpMermaidTool {
  /** The tool name, shown on the transitions the tool fires. */
  name: string;
  /** A bound tool: callable in `states` (and their descendants); a successful call sends `transition`. */
  binding?: { machine: string; states: readonly string[]; transition?: string };
  /** A start tool: it creates an instance in the initial state and sends `transition` there. */
  start?: { machine: string; transition?: string };
}

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

type NodeType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** One state node, read from an XState machine or from a plain config. */
interface DiagramNode {
  readonly key: string;
  readonly type: NodeType;
  readonly parent: DiagramNode | undefined;
  /** Children by key, in document order: `decodeStateValue` reads `key`, `type` and `states` only. */
  readonly states: Record<string, DiagramNode>;
  readonly children: DiagramNode[];
  readonly edges: DiagramEdge[];
  initial?: DiagramNode;
}

/** One candidate transition: `on` (an event descriptor), `always` or `onDone`. */
interface DiagramEdge {
  readonly kind: 'on' | 'always' | 'onDone';
  /** The event descriptor of an `on` transition (`'APPROVE'`, `'*'`, `'review.*'`); the kind otherwise. */
  readonly event: string;
  readonly guard: string | undefined;
  /** Empty for a targetless transition. */
  readonly targets: readonly DiagramNode[];
}

type TransitionLike = { target?: unknown; guard?: unknown };

/** Error of `toMermaid`: `highlight` is not a stored state value of the machine. */
// Words the state diagram grammar reads as keywords (or, for `root`, the id of the document).
const RESERVED_IDS = new Set(['state', 'note', 'class', 'classdef', 'style', 'click', 'href', 'default', 'scale', 'statediagram', 'as', 'root']);

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
 * // McpToolRegistry's definitions fit `tools` as they are.
 * toMermaid(invoiceMachine, { tools: toolRegistry.all(), highlight: 'review' });
 * // stateDiagram-v2
 * //   [*] --> draft
 * //   draft --> review : SUBMIT (invoice.submit)
 * //   ...
 */
export function toMermaid(machine: McpMachine, options: McpMermaidOptions = {}): string {
  const xstateRoot = (machine.xstateMachine as { root?: AnyStateNode } | undefined)?.root;
  const root = xstateRoot ? fromXState(xstateRoot) : fromConfig(machine);
  return new MermaidWriter(machine.id, root, options).write();
}

class MermaidWriter {
  private readonly nodes: DiagramNode[] = [];
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
    const visit = (node: DiagramNode): void => {
      this.order.set(node, this.nodes.length);
      this.nodes.push(node);
      node.children.forEach(visit);
    };
    visit(root);
    this.wrapped =
      root.type === 'parallel' ||
      root.edges.length > 0 ||
      this.nodes.some((node) => node.edges.some((edge) => edge.targets.includes(root)));
    this.assignIds();
  }

  write(): string {
    const startTools = this.startTools();
    this.collectArrows(startTools);
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
  private collectArrows(startTools: readonly McpMermaidTool[]): void {
    const bound = this.boundTools();
    const initialLeaves = this.initialLeaves();
    for (const source of this.nodes) {
      for (const edge of source.edges) {
        const tools = new Set<string>();
        if (edge.kind === 'on') {
          for (const tool of bound) {
            if (matchesEventDescriptor(tool.event, edge.event) && tool.states.some((state) => this.fires(state, source, tool.event))) {
              tools.add(tool.name);
            }
          }
          for (const tool of startTools) {
            const event = tool.start?.transition;
            if (event !== undefined && matchesEventDescriptor(event, edge.event) && initialLeaves.some((leaf) => this.reaches(leaf, source, event))) {
              tools.add(tool.name);
            }
          }
        }
        const text = label(
          [edge.event, edge.guard === undefined ? '' : `[${edge.guard}]`, tools.size ? `(${[...tools].join(', ')})` : '']
            .filter(Boolean)
            .join(' '),
        );
        for (const target of edge.targets.length ? edge.targets : [source]) {
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
      }
    }
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
   * Whether a tool callable in `bound` sends its event to the transitions that `source`
   * declares: `source` is `bound`, a descendant, an ancestor (see `reaches`) or in a
   * parallel region beside it.
   */
  private fires(bound: DiagramNode, source: DiagramNode, event: string): boolean {
    if (source === bound || isAncestor(bound, source)) {
      return true;
    }
    if (isAncestor(source, bound)) {
      return this.reaches(bound, source, event);
    }
    let common = source.parent;
    while (common && !isAncestor(common, bound)) {
      common = common.parent;
    }
    return common?.type === 'parallel';
  }

  /** Whether `event`, sent in `from`, gets up to the transitions of its ancestor-or-self `to`: no state in between takes it unguarded. */
  private reaches(from: DiagramNode, to: DiagramNode, event: string): boolean {
    for (let node: DiagramNode | undefined = from; node && node !== to; node = node.parent) {
      if (node.edges.some((edge) => edge.kind === 'on' && edge.guard === undefined && matchesEventDescriptor(event, edge.event))) {
        return false;
      }
    }
    return from === to || isAncestor(to, from);
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

  private boundTools(): Array<{ name: string; event: string; states: DiagramNode[] }> {
    const tools: Array<{ name: string; event: string; states: DiagramNode[] }> = [];
    for (const { name, binding } of this.options.tools ?? []) {
      if (binding?.machine !== this.machineId || binding.transition === undefined) {
        continue;
      }
      const states = binding.states.map((path) => this.nodeAt(path)).filter((node) => node !== undefined);
      tools.push({ name, event: binding.transition, states });
    }
    return tools;
  }

  private startTools(): McpMermaidTool[] {
    return (this.options.tools ?? []).filter(({ start }) => start?.machine === this.machineId);
  }

  /** The active states without active children once the machine has started. */
  private initialLeaves(): DiagramNode[] {
    const leaves: DiagramNode[] = [];
    const enter = (node: DiagramNode): void => {
      const active = node.type === 'parallel' ? node.children : node.initial ? [node.initial] : [];
      if (active.length === 0) {
        leaves.push(node);
      }
      active.forEach(enter);
    };
    enter(this.root);
    return leaves;
  }

  private nodeAt(path: string): DiagramNode | undefined {
    let node: DiagramNode | undefined = this.root;
    for (const key of path.split('.')) {
      node = node && Object.hasOwn(node.states, key) ? node.states[key] : undefined;
    }
    return node === this.root ? undefined : node;
  }

  /** The active state nodes of `options.highlight`, in document order. */
  private highlighted(): DiagramNode[] {
    const { highlight } = this.options;
    if (highlight === undefined) {
      return [];
    }
    // The stored spelling is owned by xstate-state-value, which reads only `key`, `type` and `states`.
    const value = decodeStateValue(this.root as unknown as AnyStateNode, highlight);
    if (value === undefined) {
      throw new Error(mermaidUnknownHighlight(this.machineId, highlight));
    }
    const active: DiagramNode[] = [];
    const walk = (node: DiagramNode, nodeValue: StateValue): void => {
      const entries: Array<[string, StateValue | undefined]> =
        typeof nodeValue === 'string' ? [[nodeValue, undefined]] : Object.entries(nodeValue);
      for (const [key, childValue] of entries) {
        const child = node.states[key];
        active.push(child);
        if (childValue !== undefined) {
          walk(child, childValue);
        }
      }
    };
    walk(this.root, value);
    return active.sort((a, b) => this.order.get(a)! - this.order.get(b)!);
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

function pathOf(node: DiagramNode): string[] {
  const path: string[] = [];
  for (let current: DiagramNode | undefined = node; current?.parent; current = current.parent) {
    path.unshift(current.key);
  }
  return path;
}

/** Whether `ancestor` is a proper ancestor of `node`. */
function isAncestor(ancestor: DiagramNode, node: DiagramNode): boolean {
  for (let current = node.parent; current; current = current.parent) {
    if (current === ancestor) {
      return true;
    }
  }
  return false;
}

/** A state name as a Mermaid state label (between double quotes, which it cannot hold). */
function stateLabel(name: string): string {
  return name.replace(/"/g, '#quot;').replace(/\r?\n|\r/g, ' ');
}

/** Text after ` : ` on an arrow: Mermaid ends it at `;` and a newline, and reads `::` as a class. */
function label(text: string): string {
  return text.replace(/;/g, '#59;').replace(/:/g, '#58;').replace(/\r?\n|\r/g, ' ');
}


function newNode(key: string, type: NodeType, parent: DiagramNode | undefined): DiagramNode {
  // No prototype: a state named `__proto__` or `toString` is an own key like any other.
  const node: DiagramNode = { key, type, parent, states: Object.create(null) as Record<string, DiagramNode>, children: [], edges: [] };
  if (parent) {
    parent.states[key] = node;
    parent.children.push(node);
  }
  return node;
}

/** The diagram tree of an XState machine, with the targets and initial states XState resolved. */
function fromXState(root: AnyStateNode): DiagramNode {
  const nodes = new Map<AnyStateNode, DiagramNode>();
  const build = (stateNode: AnyStateNode, parent: DiagramNode | undefined): void => {
    nodes.set(stateNode, newNode(stateNode.key, stateNode.type, parent));
    Object.values(stateNode.states).forEach((child) => build(child, nodes.get(stateNode)));
  };
  build(root, undefined);
  for (const [stateNode, node] of nodes) {
    const add = (kind: DiagramEdge['kind'], event: string, transitions: readonly TransitionLike[] | undefined): void => {
      for (const { guard, target } of transitions ?? []) {
        const targets = ((target as AnyStateNode[] | undefined) ?? []).map((targetNode) => nodes.get(targetNode)!);
        node.edges.push({ kind, event, guard: guard === undefined ? undefined : guardName(guard), targets });
      }
    };
    for (const descriptor of Object.keys(stateNode.config.on ?? {})) {
      add('on', descriptor, stateNode.transitions.get(descriptor));
    }
    add('always', 'always', stateNode.always);
    if (stateNode.config.onDone) {
      add('onDone', 'onDone', stateNode.transitions.get(`xstate.done.state.${stateNode.id}`));
    }
    if (stateNode.type === 'compound') {
      node.initial = nodes.get(stateNode.initial.target[0]);
    }
  }
  return nodes.get(root)!;
}

/**
 * The diagram tree of a plain config, with targets resolved the way XState resolves them:
 * `'#id.path'` by state id, `'.child'` below the source, any other path from the source's parent.
 */
function fromConfig(machine: McpMachine): DiagramNode {
  const configs = new Map<DiagramNode, McpStateNodeConfig>();
  const byId = new Map<string, DiagramNode>();
  const build = (key: string, config: McpStateNodeConfig, parent: DiagramNode | undefined, path: string[]): DiagramNode => {
    const hasStates = config.states !== undefined && Object.keys(config.states).length > 0;
    const type = config.type ?? (hasStates ? 'compound' : config.history ? 'history' : 'atomic');
    const node = newNode(key, type, parent);
    configs.set(node, config);
    byId.set(typeof config.id === 'string' && config.id ? config.id : [machine.id, ...path].join('.'), node);
    for (const [childKey, childConfig] of Object.entries(config.states ?? {})) {
      build(childKey, childConfig, node, [...path, childKey]);
    }
    return node;
  };
  const root = build(machine.id, machine.config, undefined, []);

  const byPath = (from: DiagramNode, path: string, fail: () => never): DiagramNode => {
    let node = from;
    for (const key of toStatePath(path)) {
      if (!key) {
        break;
      }
      const next = key.startsWith('#') ? byStateId(key, fail) : Object.hasOwn(node.states, key) ? node.states[key] : undefined;
      node = next ?? fail();
    }
    return node;
  };
  const byStateId = (target: string, fail: () => never): DiagramNode => {
    const [first, ...rest] = toStatePath(target);
    const node = byId.get(first.slice(1)) ?? fail();
    return rest.length ? byPath(node, rest.join('.'), fail) : node;
  };
  const resolve = (source: DiagramNode, target: string, event: string): DiagramNode => {
    const fail = (): never => {
      throw new Error(machineUnknownTarget(machine.id, pathOf(source).join('.') || machine.id, event, target));
    };
    if (target.startsWith('#')) {
      return byStateId(target, fail);
    }
    if (target.startsWith('.')) {
      return byPath(source, target.slice(1), fail);
    }
    return source.parent ? byPath(source.parent, target, fail) : fail();
  };

  for (const [node, config] of configs) {
    const add = (kind: DiagramEdge['kind'], event: string, transitions: unknown): void => {
      for (const transition of Array.isArray(transitions) ? transitions : [transitions]) {
        const { guard, target } = (typeof transition === 'object' && transition !== null ? transition : { target: transition }) as TransitionLike;
        const names = target === undefined || target === '' ? [] : Array.isArray(target) ? target : [target];
        const targets = names.map((name: unknown) => resolve(node, String(name), event));
        node.edges.push({ kind, event, guard: guard === undefined ? undefined : guardName(guard), targets });
      }
    };
    for (const [event, transitions] of Object.entries(config.on ?? {})) {
      add('on', event, transitions);
    }
    if (config.always !== undefined) {
      add('always', 'always', config.always);
    }
    if (config.onDone !== undefined) {
      add('onDone', 'onDone', config.onDone);
    }
    const initialConfig: unknown = config.initial;
    if (node.type === 'compound' && initialConfig !== undefined) {
      const initial = typeof initialConfig === 'object' && initialConfig !== null ? (initialConfig as { target?: unknown }).target : initialConfig;
      const key = String(initial);
      if (!Object.hasOwn(node.states, key)) {
        throw new Error(machineUnknownInitial(machine.id, initial, node.children.map((child) => pathOf(child).join('.'))));
      }
      node.initial = node.states[key];
    }
  }
  return root;
}

/** XState's `toStatePath`: a path split at `.`, where `\` escapes the next character. */
function toStatePath(path: string): string[] {
  const segments: string[] = [];
  let segment = '';
  for (let index = 0; index < path.length; index++) {
    if (path[index] === '\\') {
      segment += path[++index] ?? '';
    } else if (path[index] === '.') {
      segments.push(segment);
      segment = '';
    } else {
      segment += path[index];
    }
  }
  segments.push(segment);
  return segments;
}
