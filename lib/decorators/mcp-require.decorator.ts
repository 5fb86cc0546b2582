import { SetMetadata } from '@nestjs/common';
import type { McpAccessDeclaration } from '../access/define-access.js';
import { undeclaredAccess } from './decorators.messages.js';

/** Metadata key written by `@McpRequire` on a class or method. */
export const MCP_REQUIRE_METADATA = 'nestjs-mcp-fsm:require';

/** What `@McpRequire` asks of the caller: every scope of `scopes`, and one of `roles` when given. */
export interface McpRequireOptions<TScope extends string = string, TRole extends string = string> {
  /** OAuth scopes the caller's token must all hold. @default [] */
  scopes?: readonly TScope[];
  /** Roles (from the `auth.roles` hook) of which the caller must hold one. @default [] */
  roles?: readonly TRole[];
}

/** Metadata stored by `@McpRequire`. */
export interface McpRequireMetadata {
  scopes: string[];
  roles: string[];
}

/**
 * Lists and runs a tool, prompt or resource only for callers that hold what it requires,
 * on top of what its workflow state allows: every scope in `scopes` (from the token), and one
 * of `roles` (from the `auth.roles` hook) when given. Anyone else never sees it in a list; a
 * call is refused before any guard or the handler runs (over HTTP: 403 `insufficient_scope`
 * naming the scopes). On a class, it applies to each of its handlers; a method's scopes add
 * to the class's, and its roles replace them. The typed form checks each name against
 * `defineAccess(...)`.
 *
 * @example
 * \@McpTool({ name: 'payment.refund', description: 'Refund a captured payment' })
 * \@McpBindState(paymentMachine, 'captured', 'REFUND')
 * \@McpRequire(billingAccess, { scopes: ['payments:refund'] })
 * refund() { ... }
 */
export function McpRequire<const TScope extends string, const TRole extends string>(
  access: McpAccessDeclaration<TScope, TRole>,
  required: McpRequireOptions<NoInfer<TScope>, NoInfer<TRole>>,
): ClassDecorator & MethodDecorator;
/**
 * `@McpRequire` with names the compiler does not check against a `defineAccess(...)`.
 *
 * @example
 * \@McpRequire({ scopes: ['payments:refund'] })
 */
export function McpRequire(required: McpRequireOptions): ClassDecorator & MethodDecorator;
export function McpRequire(
  accessOrRequired: McpAccessDeclaration | McpRequireOptions,
  typed?: McpRequireOptions,
): ClassDecorator & MethodDecorator {
  const required = typed ?? (accessOrRequired as McpRequireOptions);
  if (typed) {
    const access = accessOrRequired as McpAccessDeclaration;
    const undeclared = [
      ...(typed.scopes ?? []).filter((scope) => !access.scopes.includes(scope)),
      ...(typed.roles ?? []).filter((role) => !access.roles.includes(role)),
    ];
    if (undeclared.length > 0) {
      throw new Error(undeclaredAccess(undeclared));
    }
  }
  return SetMetadata<string, McpRequireMetadata>(MCP_REQUIRE_METADATA, {
    scopes: [...(required.scopes ?? [])],
    roles: [...(required.roles ?? [])],
  });
}
