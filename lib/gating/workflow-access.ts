import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { NO_GRANTS, type McpGrants } from '../access/access-requirement.js';
import type { McpInstanceAccessView, McpPrincipal } from '../machines/machine-access.js';
import type { McpMachine } from '../machines/machine.interface.js';
import type { WorkflowClaimRequest } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { FsmInstanceScope } from '../stores/fsm-instance-key.js';
import { isOpenTo } from '../stores/workflow-access.js';

/** Who calls, as the connection's verified auth says: its token (`undefined` when anonymous) and what it holds. */
export interface WorkflowCallerAuth {
  readonly authInfo?: AuthInfo;
  readonly grants?: McpGrants;
}

/** The instance a caller asks for: which machine, its handle, and whether it is handle-keyed. */
export interface WorkflowAccessTarget {
  readonly machine: string;
  readonly scope: FsmInstanceScope;
  readonly handle?: string;
}

/** The verified claims of a token (`AuthInfo.extra.claims`, where `auth.jwt` puts the payload). */
function claimsOf(authInfo: AuthInfo | undefined): Record<string, unknown> {
  const claims = (authInfo?.extra as { claims?: unknown } | undefined)?.claims;
  return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : {};
}

/**
 * The principal guards, actions and an access function of `machine` see (`event.principal`):
 * the caller's id, scopes, roles and the claims the machine asks for that the token has;
 * `undefined` for an anonymous caller. Built from the verified auth only.
 */
export function principalOf(auth: WorkflowCallerAuth, machine: Pick<McpMachine, 'principalClaims'>): McpPrincipal | undefined {
  const { authInfo } = auth;
  if (!authInfo?.clientId) return undefined;
  const all = claimsOf(authInfo);
  const claims: Record<string, unknown> = {};
  for (const name of machine.principalClaims) {
    if (Object.hasOwn(all, name)) claims[name] = structuredClone(all[name]);
  }
  const grants = auth.grants ?? NO_GRANTS;
  return Object.freeze({
    id: authInfo.clientId,
    scopes: Object.freeze([...(grants.scopes.size ? grants.scopes : (authInfo.scopes ?? []))]),
    roles: Object.freeze([...grants.roles]),
    claims: Object.freeze(claims),
  });
}

/** The caller's team for `machine`: the value of its team claim in the caller's token (a non-empty string), else `undefined`. */
export function teamOf(authInfo: AuthInfo | undefined, machine: Pick<McpMachine, 'access'>): string | undefined {
  const { access } = machine;
  if (typeof access !== 'object' || !authInfo?.clientId) return undefined;
  const value = claimsOf(authInfo)[access.team];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What a start stores of its caller: the owner (the starter's principal) and, under a team rule, the starter's team. */
export function starterOf(authInfo: AuthInfo | undefined, machine: Pick<McpMachine, 'access'>): Pick<WorkflowSnapshot, 'owner' | 'team'> {
  const team = teamOf(authInfo, machine);
  return { owner: authInfo?.clientId, ...(team === undefined ? {} : { team }) };
}

/**
 * Who a claim of `target` is made for, as the store judges it: the caller's principal, its team
 * under a team rule, or `anyOwner` under an access function (the gate asks it after the claim).
 * A session's instance is its session's: the owner rule.
 */
export function claimAccessOf(
  authInfo: AuthInfo | undefined,
  machine: Pick<McpMachine, 'access'>,
  target: Pick<WorkflowAccessTarget, 'scope'>,
): Pick<WorkflowClaimRequest, 'owner' | 'team' | 'anyOwner'> {
  const owner = authInfo?.clientId;
  if (target.scope !== 'handle') return { owner };
  if (typeof machine.access === 'function') return { owner, anyOwner: true };
  const team = teamOf(authInfo, machine);
  return team === undefined ? { owner } : { owner, team };
}

/**
 * Whether the caller may see and act on the stored instance: `machine`'s access rule (an access
 * function is asked for handle-keyed instances; one that throws says no), else {@link isOpenTo}.
 */
export function mayAccess(
  auth: WorkflowCallerAuth,
  machine: Pick<McpMachine, 'access' | 'principalClaims'>,
  target: WorkflowAccessTarget,
  snapshot: WorkflowSnapshot,
): boolean {
  const { access } = machine;
  if (typeof access === 'function' && target.scope === 'handle') {
    const view: McpInstanceAccessView = {
      machine: target.machine,
      handle: target.handle,
      owner: snapshot.owner,
      team: snapshot.team,
      state: snapshot.state,
      context: snapshot.context,
    };
    try {
      return access(principalOf(auth, machine), view) === true;
    } catch {
      return false;
    }
  }
  return isOpenTo(snapshot, claimAccessOf(auth.authInfo, machine, target));
}

/** The verified auth of a call's caller. */
export function authOf(call: {
  readonly context: { readonly authInfo?: AuthInfo };
  readonly caller: { readonly grants?: McpGrants };
}): WorkflowCallerAuth {
  return { authInfo: call.context.authInfo, grants: call.caller.grants };
}
