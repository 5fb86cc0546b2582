import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { McpApprovalsService } from '../gating/mcp-approvals.service.js';
import type { McpPendingRequest } from '../gating/workflow-waiting-requests.js';
import { WorkflowRefusal } from '../gating/workflow-refusal.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { McpNodeRequest } from '../transports/mcp-body.reader.js';
import * as messages from './console.messages.js';
import { renderActionResult } from './console-actions.page.js';
import { csrfMatches } from './console-cookies.js';
import { summaryOf, WorkflowConsoleData } from './console-data.js';
import { renderInboxPage, type ConsoleInboxItem } from './console-inbox.page.js';
import { consoleInstancePath } from './console-instance-ref.js';
import type { ConsoleNav } from './console-page.shell.js';
import { sendConsoleHtml } from './console-security.headers.js';
import { readForm, type ConsoleBrowser } from './console-sign-in.js';
import { viewerHolds, type ConsoleViewer } from './console-viewer.js';

/**
 * The approvals inbox (`<path>/approvals`): the waiting requests of `@McpApproval` a signed-in
 * person may decide or asked for (`McpApprovalsService.pending`: the machines' access rules),
 * and their decisions, each a form of a browser signed in with the console's cookie, with the
 * page's CSRF token and the console's `decideScope`, decided through the gate as that person
 * (`McpApprovalsService.decide`: the same requestId binding, SELF_APPROVAL, exactly once, a
 * history row naming them). Reading it needs no scope beyond the console's.
 */
@Injectable()
export class WorkflowConsoleInbox {
  private readonly logger = new Logger('McpConsole');

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly consoleOptions: McpResolvedConsoleOptions | null,
    private readonly data: WorkflowConsoleData,
    private readonly approvals: McpApprovalsService,
  ) {}

  /** Whether the console has an inbox: a machine of the app has calls that wait for a person. */
  enabled(): boolean {
    return this.data.catalog.machines().some((known) => known.decisions.size > 0);
  }

  /** The inbox page of `viewer`: none for an anonymous person (a list needs a principal). */
  async page(res: ServerResponse, viewer: ConsoleViewer, browser: ConsoleBrowser, nav: ConsoleNav): Promise<void> {
    const who = viewer.authInfo && { authInfo: viewer.authInfo, grants: viewer.grants };
    const pending = who ? await this.approvals.pending(who) : [];
    const decides = Boolean(browser.signOut) && viewerHolds(viewer, this.options.decideScope);
    const items = pending
      .filter((request) => request.mayDecide || request.asked)
      .map((request) => this.item(request, decides, Boolean(browser.signOut)));
    const html = renderInboxPage({
      root: this.options.path,
      items,
      signedIn: who !== undefined,
      csrf: browser.signOut?.csrf,
      now: Date.now(),
      nav,
      stream: `${this.options.path}/events`,
    });
    sendConsoleHtml(res, 200, html, browser.cookies.length ? { 'Set-Cookie': browser.cookies } : {});
  }

  /**
   * A POST of a decision form: refused without the CSRF token (403), without the console's
   * sign-in (403), without `decideScope` (403) or with fields it cannot use (400); else decided
   * through the gate as the person, and a page that says how it went: a request no longer
   * waiting (decided, withdrawn, expired, or never this one) answers so (409) and changes nothing.
   */
  async decide(req: McpNodeRequest, res: ServerResponse, viewer: ConsoleViewer, browser: ConsoleBrowser, nav: ConsoleNav): Promise<void> {
    const form = await readForm(req);
    if (!form) return this.answer(res, 413, nav, messages.signInFormTooLarge(), false);
    if (!csrfMatches(req, form.get('csrf') ?? undefined)) return this.answer(res, 403, nav, messages.csrfRefused(), false);
    if (!browser.signIn || !viewer.authInfo) return this.answer(res, 403, nav, messages.actionNeedsSignIn(), false);
    const field = (name: string) => form.get(name) ?? '';
    const verdict = field('verdict');
    const machine = this.data.catalog.machine(field('machine'));
    const withdraws = verdict === 'reject' && machine !== undefined && (await this.asked(viewer, machine.id, field('handle')));
    if (!withdraws && !viewerHolds(viewer, this.options.decideScope)) {
      return this.answer(res, 403, nav, messages.actionNeedsScope(this.options.decideScope), false);
    }
    if (!machine || (verdict !== 'approve' && verdict !== 'reject') || !field('handle') || !field('requestId')) {
      return this.answer(res, 400, nav, messages.decisionFormInvalid(), false);
    }
    const reason = field('reason').trim();
    const decision = {
      machine: machine.id,
      handle: field('handle'),
      requestId: field('requestId'),
      verdict,
      ...(reason ? { reason } : {}),
    } as const;
    try {
      const decided = await this.approvals.decide({ authInfo: viewer.authInfo, grants: viewer.grants }, decision);
      const href = consoleInstancePath(
        this.options.path,
        machine.id,
        formatInstanceKey({ machine: machine.id, scope: 'handle', id: decision.handle }),
      );
      return this.answer(res, 200, nav, messages.decided(decided.verdict, machine.id, decision.handle, decided.state), true, href);
    } catch (error) {
      if (!(error instanceof WorkflowRefusal)) throw error;
      this.logger.log(messages.actionRefusedLog(machine.id, error.data.code));
      const message = error.data.code === 'STALE_REQUEST' ? messages.requestNoLongerWaiting(error.message) : error.message;
      return this.answer(res, 409, nav, message, false);
    }
  }

  private get options(): McpResolvedConsoleOptions {
    return this.consoleOptions!;
  }

  /** Whether the person asked for the request waiting on the instance (they may withdraw it without `decideScope`). */
  private async asked(viewer: ConsoleViewer, machine: string, handle: string): Promise<boolean> {
    if (!viewer.authInfo) return false;
    const pending = await this.approvals.pending({ authInfo: viewer.authInfo, grants: viewer.grants }, { machine });
    return pending.some((request) => request.handle === handle && request.asked);
  }

  private item(request: McpPendingRequest, decides: boolean, signedIn: boolean): ConsoleInboxItem {
    const known = this.data.catalog.machine(request.machine);
    const summary = known && summaryOf(known, request.from);
    const key = formatInstanceKey({ machine: request.machine, scope: 'handle', id: request.handle });
    const forms = request.mayDecide && decides ? 'decide' : request.asked && signedIn ? 'withdraw' : 'none';
    return {
      request,
      ...(summary === undefined ? {} : { summary }),
      href: consoleInstancePath(this.options.path, request.machine, key),
      forms,
    };
  }

  private answer(res: ServerResponse, status: number, nav: ConsoleNav, message: string, ok: boolean, instance?: string): void {
    const links = [
      { href: `${this.options.path}/approvals`, text: messages.backToInbox() },
      ...(instance ? [{ href: instance, text: messages.backToInstance() }] : []),
    ];
    const html = renderActionResult({
      root: this.options.path,
      title: ok ? messages.actionDone() : messages.actionRefused(),
      message,
      ok,
      links,
      nav,
    });
    sendConsoleHtml(res, status, html);
  }
}
