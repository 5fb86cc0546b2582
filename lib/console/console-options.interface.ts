import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';

/** A request to the workflow console, as `authorize` sees it: `auth` is set when the app's authentication ran (middleware, or `auth.fromRequest`). */
export type McpConsoleRequest = IncomingMessage & { auth?: AuthInfo };

/**
 * The workflow console (`McpModuleOptions.console`): a read-only page of every workflow
 * instance, its diagram, history and context, live, served by the app itself (docs/console.md).
 * It shows handles and session ids, which are bearer capabilities: keep it behind `authorize`.
 */
export interface McpConsoleOptions {
  /**
   * Path of the list of instances, absolute (`setGlobalPrefix` does not apply); an instance is
   * at `<path>/<machine>/<instance>`, its live stream at `.../events`.
   * @default '/workflows'
   */
  path?: string;
  /**
   * Who may see the console, asked for every page and stream: `true` serves it; `false` answers
   * HTTP 403; a thrown `HttpException` (e.g. `UnauthorizedException`) answers with its status
   * and message; any other error answers 500 (logged). Sync or async. Asked after `scopes`.
   * @default with `scopes`, every request whose token holds them; without, only requests from a
   *   loopback address (the machine itself)
   */
  authorize?: (request: McpConsoleRequest) => boolean | Promise<boolean>;
  /**
   * Scopes the caller's bearer token must all hold to see the console, checked by the module's
   * `auth` as for a tool: no token → 401 with the `resource_metadata` challenge, a token without
   * them → 403 `insufficient_scope` naming them (e.g. `['workflows:read']`).
   * @default [] (none)
   */
  scopes?: readonly string[];
  /** Instances on one page of the list. @default 50 */
  pageSize?: number;
  /** History rows on an instance's page, the most recent ones. @default 100 */
  historyLimit?: number;
  /** Live streams (open console pages) this process serves at once; beyond, a stream gets HTTP 503 and the page retries. @default 32 */
  maxStreams?: number;
  /** Time between heartbeats on an idle live stream (keeps proxies from closing it). @default 15_000 */
  heartbeatMs?: number;
  /** A live stream is closed after this long and the page reconnects (it re-reads what it shows). @default 300_000 (5 minutes) */
  streamMaxMs?: number;
  /**
   * The browser sign-in at `<path>/sign-in`, served when `auth` verifies bearer tokens (`jwt`,
   * `verifier`): a form takes a token, checks it as a request's `Authorization` header is
   * checked (the same verifier, `scopes` and `authorize`), and keeps it in an `HttpOnly;
   * SameSite=Strict` cookie scoped to the console's path for at most this long (never beyond
   * the token's own expiry); `<path>/sign-out` ends it. `0` turns the sign-in off. With
   * `auth.fromRequest`, your own login is the sign-in: see docs/console.md.
   * @default 3_600_000 (1 hour)
   */
  signInMaxAgeMs?: number;
  /**
   * A scope whose holder sees every instance. Without it a signed-in caller sees only the
   * instances the machines' access rules open to their principal (their own, their team's, an
   * access function's yes: the rule the gate applies to a call) in the list, a search, an
   * instance's page and the live streams; a request without a principal that `authorize` let in
   * (the loopback default) sees every instance. See docs/console.md#who-sees-which-instances.
   * @default none: every signed-in caller sees by the access rules
   */
  adminScope?: string;
  /**
   * The scope a signed-in person must hold to approve or reject, in the approvals inbox
   * (`<path>/approvals`), a request waiting for a second person (`@McpApproval`); the decision
   * then goes through the gate as the decision tool would, as that person. Reading the console
   * never needs it. @default none: the inbox shows the requests and decides nothing
   */
  decideScope?: string;
  /**
   * The scope a signed-in operator must hold to end an instance from its page (after a
   * confirmation), through the gate (`McpWorkflowService.end`: a claim and a history row naming
   * the operator). @default none: no instance is ended from the console
   */
  endScope?: string;
  /**
   * The scope a signed-in operator must hold to send, from an instance's page (after a
   * confirmation), an event its machine lets operators send (`defineMachine(..., { operatorEvents })`),
   * through the gate (`McpWorkflowService.send`, the operator as its actor).
   * @default none: no event is sent from the console
   */
  sendScope?: string;
  /** A pending deadline due within this long makes its instance stand out in the list. @default 3_600_000 (1 hour) */
  dueSoonMs?: number;
}

/** `console` with every default filled in. */
export type McpResolvedConsoleOptions = Required<Omit<McpConsoleOptions, ConsoleScopeOption>> & Pick<McpConsoleOptions, ConsoleScopeOption>;

/** The console options whose absence means "off". */
type ConsoleScopeOption = 'adminScope' | 'decideScope' | 'endScope' | 'sendScope';

/** Injection token of the {@link McpResolvedConsoleOptions} (`null` when the console is off). */
export const MCP_CONSOLE_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedConsoleOptions');
