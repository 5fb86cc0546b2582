import type { McpMachine } from '../machines/machine.interface.js';
import { formatInstanceKey, parseInstanceKey, type FsmInstanceScope } from '../stores/fsm-instance-key.js';

/** Scopes an instance segment names with a prefix (`principal:<id>`); a plain segment is a handle or a session id. */
const PREFIXED_SCOPES: readonly FsmInstanceScope[] = ['attachment', 'principal'];

/**
 * The instance part of a console URL for a store key: the handle of a handle-keyed machine,
 * the session id of a session-keyed one, `attachment:<id>` or `principal:<id>` for the other
 * scopes of session-keyed machines (stdio, stateless single-tenant, 2026-07-28 requests).
 */
export function consoleInstanceId(key: string): string {
  const { scope, id } = parseInstanceKey(key);
  return scope === 'handle' || scope === 'session' ? id : `${scope}:${id}`;
}

/** The store key of a console URL's instance part, for `machine` (see {@link consoleInstanceId}). */
export function consoleStoreKey(machine: McpMachine, instance: string): string {
  if (machine.stateHandleKey !== undefined) {
    return formatInstanceKey({ machine: machine.id, scope: 'handle', id: instance });
  }
  const colon = instance.indexOf(':');
  const prefix = colon === -1 ? undefined : PREFIXED_SCOPES.find((scope) => scope === instance.slice(0, colon));
  return prefix
    ? formatInstanceKey({ machine: machine.id, scope: prefix, id: instance.slice(colon + 1) })
    : formatInstanceKey({ machine: machine.id, scope: 'session', id: instance });
}

/**
 * The console URL of an instance: `<path>/<machine>/<instance>`, each part percent-encoded (a
 * lone surrogate, which no URL can carry, as U+FFFD: `encodeURIComponent` would throw).
 */
export function consoleInstancePath(path: string, machine: string, key: string): string {
  return `${path}/${encodeURIComponent(wellFormed(machine))}/${encodeURIComponent(wellFormed(consoleInstanceId(key)))}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}
