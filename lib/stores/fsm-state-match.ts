/**
 * Whether a stored state path is one of `allowedStates` or a descendant of one
 * (`'review.legal'` matches `'review'`, `'reviewer'` does not), as XState's `matches`.
 */
export function matchesAllowedState(state: string, allowedStates: readonly string[]): boolean {
  return allowedStates.some((allowed) => state === allowed || state.startsWith(`${allowed}.`));
}
