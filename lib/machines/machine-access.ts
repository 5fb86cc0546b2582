/**
 * Who calls, as the gate passes it to a machine's guards and actions (`event.principal`) and
 * to an access function: from the verified token, never from the model's arguments.
 */
export interface McpPrincipal {
  /** The principal (`AuthInfo.clientId`: the token's `sub`, or `auth.jwt.principalClaim`). */
  readonly id: string;
  /** The token's scopes. */
  readonly scopes: readonly string[];
  /** The caller's roles (`auth.roles`; with `auth.jwt`, the `roles` claim). */
  readonly roles: readonly string[];
  /**
   * The token claims the machine asks for (`defineMachine(..., { principalClaims })`, plus the
   * claim of a team rule), those the token has: `AuthInfo.extra.claims`, where `auth.jwt` puts
   * the verified payload (a verifier of your own puts them there too).
   */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** What an access function reads of an instance. */
export interface McpInstanceAccessView {
  /** Machine id. */
  readonly machine: string;
  /** The instance's handle (handle-keyed machines). */
  readonly handle?: string;
  /** The principal that started it; `undefined` when it was started anonymously. */
  readonly owner?: string;
  /** The value of the team claim its starter's token had (team rules); `undefined` without one. */
  readonly team?: string;
  /** Its state value, as stored. */
  readonly state: string;
  /** Its XState context. */
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * Who may act on an instance of a handle-keyed machine (`defineMachine(..., { access })`):
 * - `'owner'`: its starter only (an instance started anonymously is open to whoever holds its handle);
 * - `{ team: 'org' }`: an instance started by a token with claim `org` is open to every principal
 *   whose token has the same `org` value; one started without the claim stays its starter's;
 * - a function of the caller (`undefined` when anonymous) and the instance, asked on every call,
 *   read and list; `true` opens the instance to the caller.
 *
 * Whoever the rule lets in, the instance's owner stays its starter, and history names who acted.
 */
export type McpMachineAccess =
  'owner' | { readonly team: string } | ((principal: McpPrincipal | undefined, instance: McpInstanceAccessView) => boolean);

/**
 * Why a guard said no, for `GUARD_REJECTED` (`defineMachine(..., { guardReasons })`): a text, or
 * a function of what the guard saw (`context`, and the event with `input` and `principal`).
 */
export type McpGuardReason = string | ((args: { context: Record<string, unknown>; event: McpMachineEvent }) => string);

/**
 * The second person's decision an approved call's event carries (`event.approval`,
 * `@McpApproval`): who approved it, when, and which request it was. The call's own person, who
 * asked, stays `event.principal`.
 */
export interface McpMachineApproval {
  readonly verdict: 'approved';
  /** Who approved it, from their verified token (the back office's `actor`, with no scopes, roles or claims). */
  readonly by: McpPrincipal;
  /** ISO-8601 time of the approval. */
  readonly at: string;
  /** The request approved. */
  readonly requestId: string;
}

/**
 * The event the gate sends for a tool call: the bound event's `type`, the tool's arguments
 * (after the pipes) as `input`, and whose step it is as `principal` (`undefined` for an
 * anonymous caller): the caller, or for a call that waited for a second person's approval the
 * person who asked, with the approver in `approval`. Declare a machine's events with it so
 * guards and actions are typed:
 *
 * @example
 * setup({ types: { events: {} as McpMachineEvent<'APPROVE', { note?: string }> } })
 */
export interface McpMachineEvent<TType extends string = string, TInput = Record<string, unknown>> {
  type: TType;
  input?: TInput;
  principal?: McpPrincipal;
  /** Set on the event of a call a second person approved (`@McpApproval`): who approved it, and when. */
  approval?: McpMachineApproval;
}
