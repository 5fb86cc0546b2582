/**
 * The state of a workflow instance as handlers and clients see it: a dotted path
 * (`'approved'`, `'review.legal'`), or, while several regions of a parallel state are active,
 * XState's state value object (`{ open: { shipping: 'packed', billing: 'paid' } }`).
 */
export type McpStateValue = string | { readonly [region: string]: McpStateValue };

/** The state value of a stored state (stores keep a parallel state as JSON; no state name starts with `{`). */
export function toStateValue(state: string): McpStateValue {
  return state.startsWith('{') ? (JSON.parse(state) as McpStateValue) : state;
}
