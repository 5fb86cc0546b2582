import type { AnyStateNode, StateValue } from 'xstate';

/**
 * How `XStateMachineEngine` spells XState state values as stored strings, and back. The value of
 * a compound node is its active child (a string for a leaf, `{ child: value }` otherwise);
 * the value of a parallel node has one key per region (`{}` for a region without children).
 * A value that is one chain is stored as a dotted path; any other as JSON with keys in
 * document order. Each configuration thus has exactly one stored spelling.
 * @internal
 */

/** The child state nodes of `node`, in document order (the engine refuses history pseudo-states). */
export function childNodes(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states);
}

function childNode(node: AnyStateNode, key: string): AnyStateNode | undefined {
  return Object.hasOwn(node.states, key) ? node.states[key] : undefined;
}

const isLeaf = (node: AnyStateNode): boolean => node.type === 'atomic' || node.type === 'final';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The stored spelling of a canonical state value. */
export function encodeStateValue(value: StateValue): string {
  return chainOf(value)?.join('.') ?? JSON.stringify(value);
}

function chainOf(value: StateValue): string[] | undefined {
  if (typeof value === 'string') {
    return [value];
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    return undefined;
  }
  const child = value[keys[0]] as StateValue;
  if (typeof child !== 'string' && Object.keys(child).length === 0) {
    return keys;
  }
  const rest = chainOf(child);
  return rest && [keys[0], ...rest];
}

/**
 * The canonical state value a stored string spells, or `undefined` when it is no complete
 * configuration of the machine under `root` (an unknown key, a parent without its active
 * child, a missing region) or is not spelled the way `encodeStateValue` spells it.
 */
export function decodeStateValue(root: AnyStateNode, state: string): StateValue | undefined {
  let value: StateValue | undefined;
  if (state.startsWith('{')) {
    try {
      value = normalizeStateValue(root, JSON.parse(state));
    } catch {
      return undefined;
    }
  } else {
    value = fromPath(root, state.split('.'));
  }
  return value !== undefined && encodeStateValue(value) === state ? value : undefined;
}

/**
 * `value` (as XState reports it) with the keys of every level in document order, or
 * `undefined` when it is not a complete configuration of `node`'s descendants.
 */
export function normalizeStateValue(node: AnyStateNode, value: unknown): StateValue | undefined {
  if (node.type === 'parallel') {
    const regions = childNodes(node);
    if (!isPlainObject(value) || Object.keys(value).length !== regions.length) {
      return undefined;
    }
    const normalized: Record<string, StateValue> = {};
    for (const region of regions) {
      if (!Object.hasOwn(value, region.key)) {
        return undefined;
      }
      const regionValue = value[region.key];
      const child = isLeaf(region)
        ? isPlainObject(regionValue) && Object.keys(regionValue).length === 0
          ? {}
          : undefined
        : normalizeStateValue(region, regionValue);
      if (child === undefined) {
        return undefined;
      }
      normalized[region.key] = child;
    }
    return normalized;
  }
  if (typeof value === 'string') {
    const child = childNode(node, value);
    return child && isLeaf(child) ? value : undefined;
  }
  if (!isPlainObject(value)) {
    return undefined;
  }
  const keys = Object.keys(value);
  const child = keys.length === 1 ? childNode(node, keys[0]) : undefined;
  if (!child || isLeaf(child)) {
    return undefined;
  }
  const childValue = normalizeStateValue(child, value[keys[0]]);
  return childValue === undefined ? undefined : { [child.key]: childValue };
}

function fromPath(node: AnyStateNode, path: readonly string[]): StateValue | undefined {
  let child: AnyStateNode | undefined;
  if (node.type === 'parallel') {
    const regions = childNodes(node);
    child = regions.length === 1 && regions[0].key === path[0] ? regions[0] : undefined;
  } else {
    child = childNode(node, path[0]);
  }
  if (!child) {
    return undefined;
  }
  if (isLeaf(child)) {
    if (path.length !== 1) {
      return undefined;
    }
    return node.type === 'parallel' ? { [child.key]: {} } : child.key;
  }
  const childValue = path.length > 1 ? fromPath(child, path.slice(1)) : undefined;
  return childValue === undefined ? undefined : { [child.key]: childValue };
}

/**
 * Whether the canonical `value` is in the state at `path` or one of its descendants: XState's
 * `matchesState(pathToStateValue(path), value)`, but reading own keys only (XState's `in`
 * check takes `'toString'` or `'constructor'` for an active state of any object value).
 */
export function stateValueMatches(value: StateValue, path: readonly string[]): boolean {
  let current: StateValue = value;
  for (const [index, key] of path.entries()) {
    if (typeof current === 'string') {
      // A leaf (`'legal'` in `{ review: 'legal' }`) matches only itself, as the last key.
      return current === key && index === path.length - 1;
    }
    if (!Object.hasOwn(current, key)) {
      return false;
    }
    current = current[key] as StateValue;
  }
  return true;
}

/**
 * Every complete configuration of `node`'s descendants in which the state at `path` (relative
 * to `node`) is active, in document order; `undefined` when there are more than `limit`.
 */
export function enumerateStateValues(node: AnyStateNode, path: readonly string[], limit: number): StateValue[] | undefined {
  if (node.type === 'parallel') {
    if (path.length > 0 && !childNode(node, path[0])) {
      return [];
    }
    let combinations: Array<Record<string, StateValue>> = [{}];
    for (const region of childNodes(node)) {
      const constrained = path.length > 0 && path[0] === region.key;
      const values = isLeaf(region)
        ? constrained && path.length > 1
          ? []
          : [{}]
        : enumerateStateValues(region, constrained ? path.slice(1) : [], limit);
      if (values === undefined || combinations.length * values.length > limit) {
        return undefined;
      }
      combinations = combinations.flatMap((combination) => values.map((value) => ({ ...combination, [region.key]: value })));
    }
    return combinations;
  }
  const children = path.length > 0 ? [childNode(node, path[0])].filter((child) => child !== undefined) : childNodes(node);
  const rest = path.slice(1);
  const values: StateValue[] = [];
  for (const child of children) {
    if (isLeaf(child)) {
      if (rest.length === 0) {
        values.push(child.key);
      }
    } else {
      const childValues = enumerateStateValues(child, rest, limit - values.length);
      if (childValues === undefined) {
        return undefined;
      }
      values.push(...childValues.map((value) => ({ [child.key]: value })));
    }
    if (values.length > limit) {
      return undefined;
    }
  }
  return values;
}
