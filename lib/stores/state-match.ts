/** Whether `state` is `allowed` or one of its descendants (`'review.legal'` is in `'review'`). */
export function stateMatches(state: string, allowed: string): boolean {
  return state === allowed || state.startsWith(`${allowed}.`);
}

/** Whether `state` matches any of `allowed`. */
export function stateMatchesAny(state: string, allowed: readonly string[]): boolean {
  return allowed.some((candidate) => stateMatches(state, candidate));
}
