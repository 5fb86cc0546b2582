/** What a developer reads when a decorator is applied wrongly: worded once. */

/** Thrown where a typed `@McpRequire` names what its `defineAccess(...)` does not declare (code the compiler did not check). */
export const undeclaredAccess = (names: readonly string[]): string =>
  `@McpRequire names ${names.map((name) => JSON.stringify(name)).join(', ')}, which its defineAccess(...) does not declare; add ${names.length > 1 ? 'them' : 'it'} there.`;

/** Thrown where a typed decorator is given a state or machine id instead of the machine (code the compiler did not check). */
export const machineFirst = (decorator: '@McpBindState' | '@McpStartWorkflow', given: unknown, shortForm: string): string =>
  `${decorator} takes the machine (what defineMachine returned) first, not ${JSON.stringify(given)}; for the class's @McpWorkflow machine, or a machine id, use ${shortForm}.`;
