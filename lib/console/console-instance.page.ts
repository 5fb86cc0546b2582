import type { WorkflowAttemptRecord } from '../stores/workflow-attempt.interface.js';
import type { WorkflowApprovalNote, WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';
import {
  anonymousPrincipal,
  approvalText,
  attemptsNotKept,
  deadlineAttempts,
  instanceNotFound,
  noAttempts,
  noDeadlines,
  timersNotKept,
  waitingSummary,
  relativeTime,
  decideInInbox,
  sendEventLabel,
  endInstanceLabel,
  actionsIntro,
} from './console.messages.js';
import type { ConsoleDeadline, ConsoleHistoryEntry, ConsoleInstanceView } from './console-data.js';
import type { ConsoleNav } from './console-page.shell.js';
import { renderDiagram } from './console-diagram.svg.js';
import { consoleTime, escapeHtml } from './console-html.js';
import { consoleInstancePath } from './console-instance-ref.js';
import { renderPage } from './console-page.shell.js';

const ENDED = 'ended';

/** The operator actions an instance's page offers its viewer (each behind its scope), with the page's CSRF token. */
export interface ConsoleInstanceActions {
  /** Whether the viewer may end the instance. */
  readonly end: boolean;
  /** The events the viewer may send it (its machine's `operatorEvents` that it takes now). */
  readonly events: readonly string[];
  readonly csrf: string;
}

/** What an instance's page needs besides its view. */
export interface ConsoleInstanceContext {
  /** The console's path. */
  readonly root: string;
  /** When the page was made (epoch ms): what "in 3 h" counts from. */
  readonly now: number;
  readonly nav: ConsoleNav;
  /** Whether the console has an approvals inbox (a waiting request links to it). */
  readonly inbox: boolean;
  /** The operator's buttons; none for a viewer who may use none. */
  readonly actions?: ConsoleInstanceActions;
}

/** The context of an instance as the page shows it: pretty JSON, or a dash for none. */
export function contextText(context: Record<string, unknown> | undefined): string {
  return context === undefined ? '—' : JSON.stringify(context, null, 2);
}

/**
 * One instance: its state (a large badge), owner, team (when it has one) and last change; its machine's diagram with
 * the current state marked; its pending deadlines, earliest first (`data-deadline`, `data-event`,
 * `data-due-at`, `data-attempts`); its recent history, newest first (`data-history-entry`,
 * `data-tool`, `data-actor`: a deadline named "deadline (authorizationTtl)"); its refused and declined calls, newest first (`data-attempt`, `data-tool`,
 * `data-code`); its XState context as escaped JSON. Live: all but the attempts follow its
 * transitions (attempts show on the next load).
 */
export function renderInstancePage(view: ConsoleInstanceView, context: ConsoleInstanceContext): string {
  const { root } = context;
  const { snapshot } = view;
  const machine = view.machine.machine;
  const title = `${machine.id} ${view.instance}`;
  const self = consoleInstancePath(root, machine.id, view.key);
  const state = snapshot?.state ?? null;
  const main = `<nav class="crumbs" aria-label="Breadcrumb"><ol>
<li><a href="${escapeHtml(root)}">All instances</a></li>
<li><a href="${escapeHtml(`${root}?machine=${encodeURIComponent(machine.id)}`)}">${escapeHtml(machine.id)}</a></li>
<li><a href="${escapeHtml(self)}" aria-current="page" class="mono">${escapeHtml(view.instance)}</a></li>
</ol></nav>
<h1>${escapeHtml(machine.id)} <code>${escapeHtml(view.instance)}</code></h1>
<p class="line" id="summary-line" data-live-region data-summary="${escapeHtml(view.summary ?? '')}">${escapeHtml(view.summary ?? '')}</p>
${snapshot ? '' : `<p class="notice" role="alert">${escapeHtml(instanceNotFound(machine.id))}</p>`}
<dl class="facts" id="facts" data-live-region>
<dt>State</dt><dd><span id="state-badge" class="badge big${view.final ? ' final' : ''}${view.waiting ? ' waiting' : ''}${state === null ? ' ended' : ''}" data-ended="${ENDED}">${escapeHtml(state ?? ENDED)}</span></dd>
<dt>Owner</dt><dd class="mono">${escapeHtml(snapshot?.owner ?? '—')}</dd>
${
  snapshot?.team === undefined
    ? ''
    : `<dt>Team</dt><dd class="mono" data-team>${escapeHtml(snapshot.team)}</dd>
`
}<dt>Last change</dt><dd>${snapshot ? `<time id="updated-at" datetime="${escapeHtml(snapshot.updatedAt)}">${escapeHtml(consoleTime(snapshot.updatedAt))}</time> <span class="ago" data-ago></span>` : '—'}</dd>
</dl>
${snapshot?.waiting ? waitingSection(snapshot.waiting, context.inbox ? `${root}/approvals` : undefined) : ''}
${context.actions ? actionsSection(context.actions, `${self}/actions`) : ''}
<section aria-labelledby="deadlines-heading">
<h2 id="deadlines-heading">Pending deadlines</h2>
<table class="stack">
<caption class="visually-hidden">Timers of this instance, earliest first</caption>
<thead><tr><th scope="col">Deadline</th><th scope="col">Leads to</th><th scope="col">Due</th><th scope="col">Event</th><th scope="col">Attempts</th></tr></thead>
<tbody id="deadlines" data-live-region data-none="${escapeHtml(view.timersKept ? noDeadlines() : timersNotKept())}">
${deadlineRows(view.deadlines, view.timersKept, context.now)}
</tbody>
</table>
</section>
<section aria-labelledby="diagram-heading">
<h2 id="diagram-heading">Diagram</h2>
<figure id="diagram" class="diagram-box" data-live-region tabindex="0" aria-labelledby="diagram-heading">
${renderDiagram(machine, view.marks, view.layout)}
<figcaption>The current state is marked ▶ with a thick border${view.marks.within.length ? '; the states around it have a solid border' : ''}.</figcaption>
</figure>
</section>
<section aria-labelledby="history-heading">
<h2 id="history-heading">History</h2>
<table class="stack">
<caption class="visually-hidden">Transitions of this instance, newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Tool</th><th scope="col">Event</th><th scope="col">From → to</th><th scope="col">Principal</th></tr></thead>
<tbody id="history" data-live-region>
${historyRows(view.history.entries)}
</tbody>
</table>
${view.history.truncated ? `<p class="summary">Older transitions are not shown (the most recent ${view.history.entries.length}).</p>` : ''}
</section>
<section aria-labelledby="attempts-heading">
<h2 id="attempts-heading">Refused attempts</h2>
<table class="stack">
<caption class="visually-hidden">Refused and declined calls of this instance, newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Tool</th><th scope="col">Code</th><th scope="col">Principal</th><th scope="col">Reason</th><th scope="col">Arguments</th></tr></thead>
<tbody id="attempts">
${attemptRows(view.attempts, view.attemptsKept)}
</tbody>
</table>
</section>
<section aria-labelledby="context-heading">
<h2 id="context-heading">Context</h2>
<pre class="context mono" id="context" data-live-region tabindex="0" aria-label="XState context as JSON">${escapeHtml(contextText(snapshot?.context))}</pre>
</section>`;
  return renderPage({
    title,
    root,
    kind: 'instance',
    stream: `${self}/events`,
    main,
    templates: historyTemplate() + deadlineTemplate(),
    nav: context.nav,
  });
}

function historyRows(entries: readonly ConsoleHistoryEntry[]): string {
  if (!entries.length) return '<tr><td colspan="5" class="empty">No history (the store keeps history only with history: true).</td></tr>';
  return [...entries]
    .reverse()
    .map(
      (entry) => `<tr data-history-entry data-tool="${escapeHtml(entry.tool)}">
<td><time datetime="${escapeHtml(entry.at)}">${escapeHtml(consoleTime(entry.at))}</time></td>
<td class="mono tool">${escapeHtml(entry.tool)}</td>
<td class="mono event">${escapeHtml(entry.event ?? '—')}</td>
<td class="mono from-to">${escapeHtml(entry.from ?? '∅')} → ${escapeHtml(entry.to)}</td>
<td class="mono principal" data-actor="${escapeHtml(entry.principal ?? '')}" data-actor-kind="${entry.actor.kind}">${escapeHtml(entry.actor.text)}${entry.approval ? approvalNote(entry.approval) : ''}</td>
</tr>`,
    )
    .join('\n');
}

function deadlineRows(deadlines: readonly ConsoleDeadline[], kept: boolean, now: number): string {
  if (!deadlines.length)
    return `<tr class="empty-row"><td colspan="5" class="empty">${escapeHtml(kept ? noDeadlines() : timersNotKept())}</td></tr>`;
  return deadlines
    .map(
      (
        deadline,
      ) => `<tr data-deadline="${escapeHtml(deadline.id)}" data-event="${escapeHtml(deadline.event)}" data-due-at="${escapeHtml(deadline.dueAt)}" data-attempts="${deadline.attempts}">
<td class="mono name">${escapeHtml(deadline.name)}</td>
<td class="mono target" data-target="${escapeHtml(deadline.target ?? '')}">${escapeHtml(deadline.target ?? '—')}</td>
<td class="due"><span class="in" data-in="${escapeHtml(deadline.dueAt)}">${escapeHtml(relativeTime(Date.parse(deadline.dueAt) - now))}</span> <time datetime="${escapeHtml(deadline.dueAt)}">${escapeHtml(consoleTime(deadline.dueAt))}</time></td>
<td class="mono event">${escapeHtml(deadline.event)}</td>
<td class="attempts">${escapeHtml(deadlineAttempts(deadline.attempts))}</td>
</tr>`,
    )
    .join('\n');
}

/** The call waiting for a second person's approval (`@McpApproval`): who asked, what, when. Shown as of the page's load. */
function waitingSection(waiting: WorkflowWaitingRequest, inbox: string | undefined): string {
  const asked = waiting.requestedBy ?? anonymousPrincipal();
  return `<section aria-labelledby="waiting-heading" id="waiting" data-waiting data-tool="${escapeHtml(waiting.tool)}" data-requested-by="${escapeHtml(waiting.requestedBy ?? '')}" data-at="${escapeHtml(waiting.at)}" data-request-id="${escapeHtml(waiting.requestId)}">
<h2 id="waiting-heading">Waiting for approval</h2>
<p class="summary">${escapeHtml(waitingSummary(waiting.tool, asked, waiting.from.state))}</p>
<dl class="facts">
<dt>Asked by</dt><dd class="mono">${escapeHtml(asked)}</dd>
<dt>Asked at</dt><dd><time datetime="${escapeHtml(waiting.at)}">${escapeHtml(consoleTime(waiting.at))}</time></dd>
<dt>Tool</dt><dd class="mono">${escapeHtml(waiting.tool)} (${escapeHtml(waiting.event)})</dd>
${waiting.taskId ? `<dt>Task</dt><dd class="mono">${escapeHtml(waiting.taskId)}</dd>` : ''}
</dl>
<pre class="context mono" tabindex="0" aria-label="Arguments of the waiting call as JSON">${escapeHtml(contextText(waiting.input))}</pre>
${inbox ? `<p><a href="${escapeHtml(inbox)}">${escapeHtml(decideInInbox())}</a></p>` : ''}
</section>`;
}

/** How a history row decided a waiting request: approved or rejected, who asked, and why it was rejected. */
function approvalNote(note: WorkflowApprovalNote): string {
  return ` <span class="approval" data-approval="${escapeHtml(note.verdict)}">${escapeHtml(approvalText(note.verdict, note.requestedBy ?? anonymousPrincipal(), note.reason))}</span>`;
}

function attemptRows(attempts: readonly WorkflowAttemptRecord[], kept: boolean): string {
  if (!attempts.length) return `<tr><td colspan="6" class="empty">${escapeHtml(kept ? noAttempts() : attemptsNotKept())}</td></tr>`;
  return [...attempts]
    .reverse()
    .map(
      (
        attempt,
      ) => `<tr data-attempt data-tool="${escapeHtml(attempt.tool)}" data-code="${escapeHtml(attempt.code)}" data-principal="${escapeHtml(attempt.principal ?? '')}" data-at="${escapeHtml(attempt.at)}">
<td><time datetime="${escapeHtml(attempt.at)}">${escapeHtml(consoleTime(attempt.at))}</time></td>
<td class="mono tool">${escapeHtml(attempt.tool)}</td>
<td class="mono code"><span class="badge refused">${escapeHtml(attempt.code)}</span></td>
<td class="mono principal">${escapeHtml(attempt.principal ?? anonymousPrincipal())}</td>
<td class="reason">${escapeHtml(attempt.message ?? '—')}</td>
<td class="mono args">${escapeHtml(attempt.args === undefined ? '—' : JSON.stringify(attempt.args))}</td>
</tr>`,
    )
    .join('\n');
}

function deadlineTemplate(): string {
  return `<template id="deadline-template"><tr>
<td class="mono name"></td><td class="mono target"></td><td class="due"><span class="in"></span> <time></time></td><td class="mono event"></td><td class="attempts"></td>
</tr></template>`;
}

function historyTemplate(): string {
  return `<template id="history-template"><tr>
<td><time></time></td><td class="mono tool"></td><td class="mono event"></td><td class="mono from-to"></td><td class="mono principal"></td>
</tr></template>`;
}

/** The operator's buttons: end the instance, send an event its machine lets operators send; each asks to confirm on the next page. */
function actionsSection(actions: ConsoleInstanceActions, action: string): string {
  const form = (fields: string, label: string, data: string) =>
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="${escapeHtml(actions.csrf)}">${fields}<button type="submit" ${data}>${escapeHtml(label)}</button></form>`;
  const buttons = [
    ...actions.events.map((event) =>
      form(
        `<input type="hidden" name="event" value="${escapeHtml(event)}">`,
        sendEventLabel(event),
        `data-send-event="${escapeHtml(event)}"`,
      ),
    ),
    ...(actions.end ? [form('<input type="hidden" name="action" value="end">', endInstanceLabel(), 'data-end-instance')] : []),
  ];
  return `<section aria-labelledby="actions-heading" class="actions">
<h2 id="actions-heading">Operator actions</h2>
<p class="summary">${escapeHtml(actionsIntro())}</p>
<div class="buttons">${buttons.join('')}</div>
</section>`;
}
