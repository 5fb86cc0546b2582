import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpGrants } from '../access/access-requirement.js';
import { mayAccess, teamOf } from '../gating/workflow-access.js';
import type { McpMachine } from '../machines/machine.interface.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowInstanceViewer } from '../stores/workflow-state-reader.interface.js';

/**
 * Who looks at the console, and so what it shows them:
 * - `all`: every instance (a caller holding the console's `adminScope`, or a request without a
 *   principal that the console let in: the loopback default, an `authorize` of the app's own);
 * - `team`: the instances the machines' access rules open to the caller's principal (their own,
 *   their team's, an access function's yes), as the gate judges a call; never an instance
 *   without an owner, whose key the console would otherwise hand out.
 */
export type ConsoleViewer =
  | {
      readonly kind: 'all';
      readonly principal?: string;
      /** The caller's verified auth, when it has a principal. */
      readonly authInfo?: AuthInfo;
      readonly grants: McpGrants;
      readonly expiresAt?: number;
    }
  | {
      readonly kind: 'team';
      readonly principal: string;
      readonly authInfo: AuthInfo;
      readonly grants: McpGrants;
      /** When the caller's token expires, epoch seconds (`AuthInfo.expiresAt`). */
      readonly expiresAt?: number;
    };

/** The viewer of a request the console let in: its verified caller and grants, and the console's `adminScope`. */
export function consoleViewerOf(authInfo: AuthInfo | undefined, grants: McpGrants, adminScope: string | undefined): ConsoleViewer {
  const principal = authInfo?.clientId || undefined;
  const expiresAt = typeof authInfo?.expiresAt === 'number' ? authInfo.expiresAt : undefined;
  if (!authInfo || principal === undefined || (adminScope !== undefined && grants.scopes.has(adminScope))) {
    return { kind: 'all', principal, ...(principal === undefined ? {} : { authInfo }), grants, expiresAt };
  }
  return { kind: 'team', principal, authInfo, grants, expiresAt };
}

/** Whether `viewer` holds `scope` (a scope the console names for an action). */
export function viewerHolds(viewer: ConsoleViewer, scope: string | undefined): boolean {
  return scope !== undefined && viewer.grants.scopes.has(scope);
}

/** What a store's list is asked for `viewer` over `machines` (see `WorkflowInstanceViewer`); `undefined`: every instance. */
export function listViewerOf(viewer: ConsoleViewer, machines: readonly McpMachine[]): WorkflowInstanceViewer | undefined {
  if (viewer.kind === 'all') return undefined;
  const teams: Record<string, string> = {};
  const anyOwner: string[] = [];
  for (const machine of machines) {
    if (typeof machine.access === 'function' && machine.stateHandleKey !== undefined) anyOwner.push(machine.id);
    const team = machine.stateHandleKey === undefined ? undefined : teamOf(viewer.authInfo, machine);
    if (team !== undefined) teams[machine.id] = team;
  }
  return { owner: viewer.principal, teams, anyOwner };
}

/** Whether a list's rows of `machine` must still be judged one by one for `viewer` (an access function, which needs the instance). */
export function judgedOneByOne(viewer: ConsoleViewer, machine: McpMachine): boolean {
  return viewer.kind === 'team' && typeof machine.access === 'function' && machine.stateHandleKey !== undefined;
}

/** Whether `viewer` may see the instance at `key` of `machine`, stored as `snapshot` (an instance that is gone: only a viewer of `all`). */
export function mayView(viewer: ConsoleViewer, machine: McpMachine, key: string, snapshot: WorkflowSnapshot | undefined): boolean {
  if (viewer.kind === 'all') return true;
  if (!snapshot) return false;
  const { scope, id } = parseInstanceKey(key);
  if (!judgedOneByOne(viewer, machine) && (snapshot.owner === undefined || snapshot.owner === null)) return false;
  const target = { machine: machine.id, scope, handle: scope === 'handle' ? id : undefined };
  return mayAccess({ authInfo: viewer.authInfo, grants: viewer.grants }, machine, target, snapshot);
}
