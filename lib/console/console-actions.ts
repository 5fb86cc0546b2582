import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { McpWorkflowService } from '../gating/mcp-workflow.service.js';
import { WorkflowRefusal } from '../gating/workflow-refusal.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import type { McpNodeRequest } from '../transports/mcp-body.reader.js';
import * as messages from './console.messages.js';
import { renderActionResult, renderConfirmPage } from './console-actions.page.js';
import type { ConsoleMachine } from './console-catalog.js';
import { csrfMatches } from './console-cookies.js';
import { WorkflowConsoleData, type ConsoleInstanceView } from './console-data.js';
import { consoleInstancePath } from './console-instance-ref.js';
import type { ConsoleInstanceActions } from './console-instance.page.js';
import type { ConsoleNav } from './console-page.shell.js';
import { sendConsoleHtml } from './console-security.headers.js';
import { readForm, type ConsoleBrowser } from './console-sign-in.js';
import { viewerHolds, type ConsoleViewer } from './console-viewer.js';

/** The instance an action names: its machine and the instance part of its URL. */
interface ConsoleActionTarget {
  readonly machine: string | undefined;
  readonly instance: string | undefined;
}

/** What an operator asks of an instance: to end it, or to send it an event. */
type ConsoleAction = { kind: 'end' } | { kind: 'send'; event: string };

/**
 * What a person does from the console, each a form of a signed-in browser (the sign-in cookie
 * and the page's CSRF token), behind its own scope, asked to confirm first, and carried out
 * through the gate as that person (a claim, a history row naming them): an operator ends an
 * instance (`endScope`) or sends it an event its machine lets operators send (`sendScope`).
 */
@Injectable()
export class WorkflowConsoleActions {
  private readonly logger = new Logger('McpConsole');

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly consoleOptions: McpResolvedConsoleOptions | null,
    private readonly data: WorkflowConsoleData,
    private readonly machines: McpMachineRegistry,
    private readonly workflows: McpWorkflowService,
  ) {}

  /** Checks, at startup, that each machine's operator events are events of the machine. */
  check(): void {
    for (const known of this.data.catalog.machines()) {
      const events = this.machines.engine(known.id).eventNames();
      const unknown = known.operatorEvents.find((event) => !events.includes(event));
      if (unknown !== undefined) throw new Error(messages.unknownOperatorEvent(known.id, unknown, events));
    }
  }

  /** The operator's buttons an instance's page shows `viewer`: only in a browser signed in with the console's cookie, each behind its scope. */
  offered(view: ConsoleInstanceView, viewer: ConsoleViewer, browser: ConsoleBrowser): ConsoleInstanceActions | undefined {
    const { snapshot, machine } = view;
    if (!browser.signOut || !snapshot || machine.machine.stateHandleKey === undefined) return undefined;
    const end = viewerHolds(viewer, this.options.endScope);
    const events = viewerHolds(viewer, this.options.sendScope)
      ? machine.operatorEvents.filter((event) => this.takes(machine, snapshot.state, event))
      : [];
    return end || events.length ? { end, events, csrf: browser.signOut.csrf } : undefined;
  }

  /**
   * A POST of an instance's action form: refused without the CSRF token (403), without a
   * sign-in (403), for an instance the viewer may not see (404), without the action's scope
   * (403) or for an event operators may not send (400); the first time a confirmation page,
   * then, confirmed, the action through the gate and a page that says how it went.
   */
  async act(
    req: McpNodeRequest,
    res: ServerResponse,
    target: ConsoleActionTarget,
    viewer: ConsoleViewer,
    browser: ConsoleBrowser,
    nav: ConsoleNav,
  ): Promise<void> {
    const form = await readForm(req);
    if (!form) return this.send(res, 413, nav, messages.signInFormTooLarge());
    if (!csrfMatches(req, form.get('csrf') ?? undefined)) return this.send(res, 403, nav, messages.csrfRefused());
    if (!browser.signIn || viewer.principal === undefined) return this.send(res, 403, nav, messages.actionNeedsSignIn());
    const machine = target.machine === undefined ? undefined : this.data.catalog.machine(target.machine);
    const found = machine && target.instance !== undefined ? await this.data.visible(machine, target.instance, viewer) : undefined;
    if (!machine || !found?.snapshot || machine.machine.stateHandleKey === undefined) {
      return this.send(res, 404, nav, messages.instanceNotFound(target.machine ?? ''));
    }
    const action: ConsoleAction | undefined =
      form.get('action') === 'end' ? { kind: 'end' } : form.get('event') ? { kind: 'send', event: form.get('event')! } : undefined;
    if (!action) return this.send(res, 400, nav, messages.actionUnknown());
    const scope = action.kind === 'end' ? this.options.endScope : this.options.sendScope;
    if (!viewerHolds(viewer, scope)) return this.send(res, 403, nav, messages.actionNeedsScope(scope));
    if (action.kind === 'send' && !machine.operatorEvents.includes(action.event)) {
      return this.send(res, 400, nav, messages.operatorEventNotAllowed(machine.id, action.event));
    }
    const handle = target.instance!;
    const page = consoleInstancePath(this.options.path, machine.id, found.key);
    if (form.get('confirmed') !== 'yes') {
      const fields = { csrf: form.get('csrf')!, ...(action.kind === 'end' ? { action: 'end' } : { event: action.event }) };
      const question =
        action.kind === 'end'
          ? messages.confirmEnd(machine.id, handle, found.snapshot.state)
          : messages.confirmSend(action.event, machine.id, handle, found.snapshot.state);
      const confirm = action.kind === 'end' ? messages.endInstanceLabel() : messages.sendEventLabel(action.event);
      return this.html(
        res,
        200,
        renderConfirmPage({
          root: this.options.path,
          action: `${page}/actions`,
          fields,
          question,
          confirm: confirm.replace(/…$/, ''),
          back: page,
          nav,
        }),
      );
    }
    try {
      const ref = { machine: machine.id, handle };
      if (action.kind === 'end') {
        const ended = await this.workflows.end(ref, { actor: viewer.principal });
        return this.done(res, nav, ended ? messages.endedInstance(machine.id, handle) : messages.instanceNotFound(machine.id), ended, page);
      }
      const run = machine.machine.operatorEvents?.[action.event]?.run as ((ctx: McpToolContext) => unknown) | undefined;
      const { state } = await this.workflows.send(ref, action.event, { actor: viewer.principal, ...(run && { run }) });
      return this.done(res, nav, messages.sentEvent(action.event, machine.id, handle, String(state)), true, page);
    } catch (error) {
      if (!(error instanceof WorkflowRefusal)) throw error;
      this.logger.log(messages.actionRefusedLog(machine.id, error.data.code));
      return this.done(res, nav, error.message, false, page, 409);
    }
  }

  private get options(): McpResolvedConsoleOptions {
    return this.consoleOptions!;
  }

  /** Whether an instance of `machine` in `state` takes `event` (some transition of its active states does, guards aside). */
  private takes(machine: ConsoleMachine, state: string, event: string): boolean {
    const events = this.machines.engine(machine.id).eventsWhile(state);
    return (
      events === undefined ||
      events.some(
        (descriptor) =>
          descriptor === event || descriptor === '*' || (descriptor.endsWith('.*') && event.startsWith(descriptor.slice(0, -1))),
      )
    );
  }

  private done(res: ServerResponse, nav: ConsoleNav, message: string, ok: boolean, page: string, status = 200): void {
    const links = [
      { href: page, text: messages.backToInstance() },
      { href: this.options.path, text: messages.allInstances() },
    ];
    this.html(
      res,
      status,
      renderActionResult({
        root: this.options.path,
        title: ok ? messages.actionDone() : messages.actionRefused(),
        message,
        ok,
        links,
        nav,
      }),
    );
  }

  private send(res: ServerResponse, status: number, nav: ConsoleNav, message: string): void {
    this.html(
      res,
      status,
      renderActionResult({
        root: this.options.path,
        title: messages.actionRefused(),
        message,
        ok: false,
        links: [{ href: this.options.path, text: messages.allInstances() }],
        nav,
      }),
    );
  }

  private html(res: ServerResponse, status: number, html: string): void {
    sendConsoleHtml(res, status, html);
  }
}
