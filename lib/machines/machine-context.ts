import { machineContextNotJson } from './machines.messages.js';

/**
 * A deep copy of a machine's context as JSON data, so that what an engine answers shares no
 * object with its own snapshots or with what it was given. Properties whose value is
 * `undefined` are left out, as `JSON.stringify` does.
 *
 * @throws when the context holds anything a JSON store would not give back unchanged
 *   (a function, a `Date`, a class instance, `NaN`, a cycle…), naming where.
 * @internal
 */
export function copyContext(machineId: string, context: object): Record<string, unknown> {
  return copyJson(machineId, context, '', new Set()) as Record<string, unknown>;
}

function copyJson(machineId: string, value: unknown, path: string, ancestors: Set<object>): unknown {
  const refuse = (what: string): never => {
    throw new Error(machineContextNotJson(machineId, path, what));
  };
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : refuse(String(value));
    case 'object':
      break;
    default:
      return refuse(value === undefined ? 'undefined' : `a ${typeof value}`);
  }
  if (value === null) {
    return null;
  }
  if (ancestors.has(value)) {
    return refuse('a reference to itself (a cycle)');
  }
  ancestors.add(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    copy = value.map((item, index) => copyJson(machineId, item, `${path}[${index}]`, ancestors));
  } else {
    // Compared by shape, not identity: a plain object made in another realm (a vm context,
    // as test runners use) has another `Object.prototype`.
    const prototype = Object.getPrototypeOf(value) as object | null;
    if (prototype !== null && Object.getPrototypeOf(prototype) !== null) {
      refuse(`an instance of ${(value.constructor as { name?: string } | undefined)?.name || 'a class'}`);
    }
    // `fromEntries` defines own properties, so a key such as "__proto__" stays data.
    copy = Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, copyJson(machineId, item, `${path}.${key}`, ancestors)]),
    );
  }
  ancestors.delete(value);
  return copy;
}
