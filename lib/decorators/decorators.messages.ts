/** What a developer reads when a decorator is applied wrongly: worded once. */

/** Thrown where a typed `@McpRequire` names what its `defineAccess(...)` does not declare (code the compiler did not check). */
export const undeclaredAccess = (names: readonly string[]): string =>
  `@McpRequire names ${names.map((name) => JSON.stringify(name)).join(', ')}, which its defineAccess(...) does not declare; add ${names.length > 1 ? 'them' : 'it'} there.`;
