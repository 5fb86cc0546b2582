import type { McpPendingRequest } from '../gating/workflow-waiting-requests.js';
import {
  approveLabel,
  inboxAsked,
  inboxEmpty,
  inboxIntro,
  inboxNeedsSignIn,
  inboxTitle,
  reasonLabel,
  rejectLabel,
  relativeTime,
  withdrawLabel,
} from './console.messages.js';
import { consoleTime, escapeHtml } from './console-html.js';
import { renderPage, type ConsoleNav } from './console-page.shell.js';

/** One waiting request as the inbox shows it: the request, the instance's summary and page, and the forms its viewer may use. */
export interface ConsoleInboxItem {
  readonly request: McpPendingRequest;
  /** The machine's summary of the instance as the request found it. */
  readonly summary?: string;
  /** The instance's page in the console. */
  readonly href: string;
  /** The forms shown: approve and reject (a person who may decide), withdraw (the person who asked), or none. */
  readonly forms: 'decide' | 'withdraw' | 'none';
}

/** What the inbox page shows. */
export interface ConsoleInboxView {
  readonly root: string;
  readonly items: readonly ConsoleInboxItem[];
  /** Whether the viewer is a signed-in person (an anonymous one has no inbox). */
  readonly signedIn: boolean;
  /** The page's CSRF token, for its forms. */
  readonly csrf?: string;
  /** When the page was made (epoch ms): what "in 3 h" counts from. */
  readonly now: number;
  readonly nav: ConsoleNav;
  /** The live stream of the machines with waiting requests: the page re-reads itself on each of their transitions. */
  readonly stream?: string;
}

/**
 * The approvals inbox: every waiting request the signed-in person may decide, or asked for, newest
 * first, each an element `data-waiting` with `data-machine`, `data-instance` and
 * `data-request-id`, showing who asked, when, the request's arguments, the instance's summary and
 * the request's expiry. A person who may decide it sees a form with a `data-approve` button and
 * one with a `reason` field and a `data-reject` button; the person who asked sees neither (a
 * withdraw button instead). Every form carries the CSRF token.
 */
export function renderInboxPage(view: ConsoleInboxView): string {
  const action = `${view.root}/approvals`;
  const items = view.items.map((item) => itemHtml(item, action, view));
  const main = `<h1>${escapeHtml(inboxTitle())}</h1>
<p class="summary">${escapeHtml(view.signedIn ? inboxIntro() : inboxNeedsSignIn())}</p>
<div id="inbox" class="inbox" data-live-region>
${items.length ? items.join('\n') : `<p class="empty" id="inbox-empty">${escapeHtml(inboxEmpty())}</p>`}
</div>`;
  return renderPage({ title: inboxTitle(), root: view.root, kind: 'inbox', stream: view.stream, main, nav: view.nav });
}

function itemHtml({ request, summary, href, forms }: ConsoleInboxItem, action: string, view: ConsoleInboxView): string {
  const asked = request.requestedBy ?? '—';
  const args = Object.entries(request.input)
    .map(
      ([name, value]) =>
        `<dt>${escapeHtml(name)}</dt><dd class="mono" data-argument="${escapeHtml(name)}">${escapeHtml(JSON.stringify(value))}</dd>`,
    )
    .join('');
  const hidden = (verdict: string) =>
    [
      ['csrf', view.csrf ?? ''],
      ['machine', request.machine],
      ['handle', request.handle],
      ['requestId', request.requestId],
      ['verdict', verdict],
    ]
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
      .join('');
  const id = `reason-${escapeHtml(request.requestId)}`;
  const decide =
    forms === 'decide'
      ? `<div class="decide">
<form method="post" action="${escapeHtml(action)}">${hidden('approve')}<button type="submit" data-approve>${escapeHtml(approveLabel())}</button></form>
<form method="post" action="${escapeHtml(action)}" class="reject">${hidden('reject')}<label for="${id}">${escapeHtml(reasonLabel())}<input id="${id}" name="reason" type="text" maxlength="500" autocomplete="off"></label><button type="submit" data-reject>${escapeHtml(rejectLabel())}</button></form>
</div>`
      : forms === 'withdraw'
        ? `<div class="decide"><form method="post" action="${escapeHtml(action)}">${hidden('reject')}<button type="submit" data-withdraw>${escapeHtml(withdrawLabel())}</button></form></div>`
        : '';
  const expiry = request.expiresAt
    ? `<dt>Expires</dt><dd><span class="in" data-in="${escapeHtml(request.expiresAt)}">${escapeHtml(relativeTime(Date.parse(request.expiresAt) - view.now))}</span> <time datetime="${escapeHtml(request.expiresAt)}">${escapeHtml(consoleTime(request.expiresAt))}</time></dd>`
    : '';
  return `<article class="waiting" data-waiting data-machine="${escapeHtml(request.machine)}" data-instance="${escapeHtml(request.handle)}" data-request-id="${escapeHtml(request.requestId)}" data-requested-by="${escapeHtml(request.requestedBy ?? '')}"${request.asked ? ' data-asked' : ''}>
<h2><span class="mono">${escapeHtml(request.tool)}</span> on <a class="mono" href="${escapeHtml(href)}">${escapeHtml(request.machine)} ${escapeHtml(request.handle)}</a></h2>
${summary ? `<p class="line">${escapeHtml(summary)}</p>` : ''}
<dl class="facts">
<dt>Asked by</dt><dd class="mono requester">${escapeHtml(asked)}${request.asked ? ` <span class="flag">${escapeHtml(inboxAsked())}</span>` : ''}</dd>
<dt>Asked at</dt><dd><time datetime="${escapeHtml(request.requestedAt)}">${escapeHtml(consoleTime(request.requestedAt))}</time> <span class="ago" data-ago></span></dd>
${args}
${expiry}
<dt>Request</dt><dd class="mono">${escapeHtml(request.requestId)}</dd>
</dl>
${decide}
</article>`;
}
