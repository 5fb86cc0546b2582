/**
 * What a tool, prompt or resource requires of its caller (`@McpRequire`): every scope in
 * `scopes`, and one of `roles` when there are any.
 */
export interface McpAccessRequirement {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  /**
   * `true` on the reject tool of `@McpApproval`: the person who asked for the waiting request may
   * call it without the grants (withdrawing it). Only the gate knows who asked, so an access check
   * before the gate lets such a call in, and the gate applies the rule; menus show it by the rule.
   */
  readonly orRequester?: boolean;
}

/** What a caller holds: the scopes of its token, and the roles the `auth.roles` hook gave it. */
export interface McpGrants {
  readonly scopes: ReadonlySet<string>;
  readonly roles: ReadonlySet<string>;
}

/** The grants of an anonymous caller (and of stdio, which has no token). */
export const NO_GRANTS: McpGrants = Object.freeze({ scopes: new Set<string>(), roles: new Set<string>() });

/** A scope as OAuth 2.0 allows it (RFC 6749 §3.3: printable ASCII but space, `"` and `\`). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Whether `scope` is a well-formed OAuth scope. */
export function isScopeToken(scope: string): boolean {
  return SCOPE_TOKEN.test(scope);
}

/** The scopes of `requirement` that `grants` lacks, in declaration order. */
export function missingScopes(requirement: McpAccessRequirement | undefined, grants: McpGrants): string[] {
  return requirement ? requirement.scopes.filter((scope) => !grants.scopes.has(scope)) : [];
}

/** Whether `grants` lack every role of a requirement that names roles. */
export function lacksRole(requirement: McpAccessRequirement | undefined, grants: McpGrants): boolean {
  return requirement !== undefined && requirement.roles.length > 0 && !requirement.roles.some((role) => grants.roles.has(role));
}

/** Whether `grants` hold what `requirement` asks (nothing required: always). */
export function permits(requirement: McpAccessRequirement | undefined, grants: McpGrants): boolean {
  return requirement === undefined || (requirement.scopes.every((scope) => grants.scopes.has(scope)) && !lacksRole(requirement, grants));
}

/** Whether an access check before the gate must leave `requirement` to the gate (it admits the requester: see {@link McpAccessRequirement.orRequester}). */
export function judgedByGate(requirement: McpAccessRequirement | undefined): boolean {
  return requirement?.orRequester === true;
}

/** The two requirements together: every scope of both; the roles of `inner` when it names some, else those of `outer`. */
export function combineRequirements(
  outer: McpAccessRequirement | undefined,
  inner: McpAccessRequirement | undefined,
): McpAccessRequirement | undefined {
  if (!outer || !inner) {
    return outer ?? inner;
  }
  return { scopes: [...new Set([...outer.scopes, ...inner.scopes])], roles: inner.roles.length > 0 ? inner.roles : outer.roles };
}

const signatures = new WeakMap<McpGrants, string>();

/** One string per distinct grants, to tell when a session's caller came back holding something else (worked out once per grants). */
export function grantsSignature(grants: McpGrants): string {
  let signature = signatures.get(grants);
  if (signature === undefined) {
    signature = `${[...grants.scopes].sort().join(' ')}\n${[...grants.roles].sort().join(' ')}`;
    signatures.set(grants, signature);
  }
  return signature;
}
