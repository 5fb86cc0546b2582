/** The scopes and roles an app's `@McpRequire` may name: the compiler checks every name against them. */
export interface McpAccessDeclaration<TScope extends string = string, TRole extends string = string> {
  readonly scopes: readonly TScope[];
  readonly roles: readonly TRole[];
}

/**
 * Declares the scopes and roles of an app, as `defineMachine` declares a machine's states:
 * `@McpRequire(access, { scopes: [...] })` then accepts only these names, and
 * `auth.scopesSupported: access.scopes` lists them in the protected-resource metadata.
 *
 * @example
 * export const billingAccess = defineAccess({ scopes: ['payments:refund', 'invoices:approve'], roles: ['finance'] });
 */
export function defineAccess<const TScope extends string = never, const TRole extends string = never>(declared: {
  scopes?: readonly TScope[];
  roles?: readonly TRole[];
}): McpAccessDeclaration<TScope, TRole> {
  return Object.freeze({ scopes: Object.freeze([...(declared.scopes ?? [])]), roles: Object.freeze([...(declared.roles ?? [])]) });
}
