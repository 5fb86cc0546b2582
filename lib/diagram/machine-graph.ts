import type { AnyStateNode, StateValue } from 'xstate';
import { machineUnknownInitial, machineUnknownTarget, mermaidUnknownHighlight } from '../machines/machines.messages.js';
import type { McpMachine, McpStateNodeConfig } from '../machines/machine.interface.js';
import { decodeStateValue } from '../machines/xstate-state-value.js';
import { guardName } from '../machines/xstate-transition-names.js';

type NodeType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** One state node, read from an XState machine or from a plain config. */
export interface DiagramNode {
  readonly key: string;
  readonly type: NodeType;
  readonly parent: DiagramNode | undefined;
  /** Children by key, in document order: `decodeStateValue` reads `key`, `type` and `states` only. */
  readonly states: Record<string, DiagramNode>;
  readonly children: DiagramNode[];
  readonly edges: DiagramEdge[];
  initial?: DiagramNode;
}

/** One candidate transition: `on` (an event descriptor), `always`, `onDone` or `after` (a delay). */
export interface DiagramEdge {
  readonly kind: 'on' | 'always' | 'onDone' | 'after';
  /** The event descriptor of an `on` transition (`'APPROVE'`, `'*'`, `'review.*'`), the delay of an `after` one as written (`'authorizationTtl'`, `'5000'`); the kind otherwise. */
  readonly event: string;
  readonly guard: string | undefined;
  /** Empty for a targetless transition. */
  readonly targets: readonly DiagramNode[];
}

/** How an edge names what takes it: its event, `after <delay>` for a delayed transition, or `always` / `onDone`. */
export function edgeEventText(edge: DiagramEdge): string {
  return edge.kind === 'after' ? `after ${edge.event}` : edge.event;
}

type TransitionLike = { target?: unknown; guard?: unknown; delay?: unknown };

/**
 * The state tree of a machine with its transitions resolved to state nodes: read from the
 * XState machine when `xstate` built one, else from the plain config.
 *
 * @throws when a plain config targets a state it does not have, or names an unknown initial state.
 */
export function machineGraph(machine: McpMachine): DiagramNode {
  const xstateRoot = (machine.xstateMachine as { root?: AnyStateNode } | undefined)?.root;
  return xstateRoot ? fromXState(xstateRoot) : fromConfig(machine);
}

/** Every node of the tree below and including `root`, in document order. */
export function graphNodes(root: DiagramNode): DiagramNode[] {
  const nodes: DiagramNode[] = [];
  const visit = (node: DiagramNode): void => {
    nodes.push(node);
    node.children.forEach(visit);
  };
  visit(root);
  return nodes;
}

/**
 * The active state nodes of a stored state value (`MachineState.state`), in the order the
 * value names them.
 *
 * @throws when `stored` is no complete configuration of the machine.
 */
export function activeNodes(root: DiagramNode, machineId: string, stored: string): DiagramNode[] {
  // The stored spelling is owned by xstate-state-value, which reads only `key`, `type` and `states`.
  const value = decodeStateValue(root as unknown as AnyStateNode, stored);
  if (value === undefined) {
    throw new Error(mermaidUnknownHighlight(machineId, stored));
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
  walk(root, value);
  return active;
}

/** The state node at a dotted path below `root`; `undefined` when there is none (or the path names the root). */
export function nodeAt(root: DiagramNode, path: string): DiagramNode | undefined {
  let node: DiagramNode | undefined = root;
  for (const key of path.split('.')) {
    node = node && Object.hasOwn(node.states, key) ? node.states[key] : undefined;
  }
  return node === root ? undefined : node;
}

/** The keys from the root's child down to `node` (empty for the root). */
export function pathOf(node: DiagramNode): string[] {
  const path: string[] = [];
  for (let current: DiagramNode | undefined = node; current?.parent; current = current.parent) {
    path.unshift(current.key);
  }
  return path;
}

/** Whether `ancestor` is a proper ancestor of `node`. */
export function isAncestor(ancestor: DiagramNode, node: DiagramNode): boolean {
  for (let current = node.parent; current; current = current.parent) {
    if (current === ancestor) {
      return true;
    }
  }
  return false;
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
    // XState lists a node's `after` transitions by delay (numbers first); the diagram keeps that order.
    for (const transition of (stateNode.after ?? []) as readonly TransitionLike[]) {
      add('after', String(transition.delay), [transition]);
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
        const { guard, target } = (
          typeof transition === 'object' && transition !== null ? transition : { target: transition }
        ) as TransitionLike;
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
    if (typeof config.after === 'object' && config.after !== null) {
      for (const [delay, transitions] of Object.entries(config.after)) {
        add('after', delay, transitions);
      }
    }
    const initialConfig: unknown = config.initial;
    if (node.type === 'compound' && initialConfig !== undefined) {
      const initial =
        typeof initialConfig === 'object' && initialConfig !== null ? (initialConfig as { target?: unknown }).target : initialConfig;
      const key = String(initial);
      if (!Object.hasOwn(node.states, key)) {
        throw new Error(
          machineUnknownInitial(
            machine.id,
            initial,
            node.children.map((child) => pathOf(child).join('.')),
          ),
        );
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
