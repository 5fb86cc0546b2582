/**
 * How an instance is addressed: by a minted handle, by an MCP session, by the in-process
 * attachment, or (2026-07-28 requests, which have no session) by the authenticated principal.
 */
export type FsmInstanceScope = 'handle' | 'session' | 'attachment' | 'principal';

/** The parts of a store key. */
interface FsmInstanceKey {
  machine: string;
  scope: FsmInstanceScope;
  /** The handle, the session id, the attachment id or the principal (auth client id). */
  id: string;
}

/**
 * The store key of an instance, the one format every store and the gate share:
 * `"<machine>:<handle>"`, `"<machine>:session:<id>"`, `"<machine>:attachment:<id>"` or
 * `"<machine>:principal:<id>"`. Stored rows are found by this exact string, so the format is fixed.
 */
export function formatInstanceKey({ machine, scope, id }: FsmInstanceKey): string {
  return scope === 'handle' ? `${machine}:${id}` : `${machine}:${scope}:${id}`;
}

/** The parts of a store key made by {@link formatInstanceKey}. */
export function parseInstanceKey(key: string): FsmInstanceKey {
  const colon = key.indexOf(':');
  const machine = colon === -1 ? key : key.slice(0, colon);
  const rest = colon === -1 ? '' : key.slice(colon + 1);
  for (const scope of ['session', 'attachment', 'principal'] as const) {
    if (rest.startsWith(`${scope}:`)) {
      return { machine, scope, id: rest.slice(scope.length + 1) };
    }
  }
  return { machine, scope: 'handle', id: rest };
}
