/** Who asks for an instance, as a store judges it: the caller's principal and, for a machine with a team rule, the caller's team. */
export interface WorkflowAccessor {
  /** The caller's principal (auth client id); `undefined` for an anonymous caller. */
  readonly owner?: string;
  /** The caller's value of the machine's team claim; `undefined` when the machine has no team rule or the token lacks the claim. */
  readonly team?: string;
}

/**
 * The one rule a store applies (the SQL stores in their WHERE clauses, the same rule):
 * an instance started anonymously (no owner) is open to whoever holds its key; one with an
 * owner is open to its owner, and, when its starter had a team, to a caller of the same team.
 * Anyone else (an anonymous caller included) is told the instance is `unknown`.
 */
export function isOpenTo(instance: { owner?: string | null; team?: string | null }, caller: WorkflowAccessor): boolean {
  if (instance.owner === undefined || instance.owner === null || instance.owner === caller.owner) return true;
  // A team is a claim of a token: an anonymous caller has none.
  return caller.owner !== undefined && caller.team !== undefined && instance.team !== undefined && instance.team === caller.team;
}

/** Whether a claim may take `instance`: {@link isOpenTo}, unless the gate judges access itself (`anyOwner`). */
export function mayClaim(
  instance: { owner?: string | null; team?: string | null },
  request: WorkflowAccessor & { anyOwner?: boolean },
): boolean {
  return request.anyOwner === true || isOpenTo(instance, request);
}
