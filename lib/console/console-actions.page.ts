import { confirmCancel, confirmTitle } from './console.messages.js';
import { escapeHtml } from './console-html.js';
import { renderPage, type ConsoleNav } from './console-page.shell.js';

/** A form posted back once the person confirmed: where it goes, its fields (the CSRF token among them), and what it asks. */
export interface ConsoleConfirmation {
  readonly root: string;
  readonly action: string;
  readonly fields: Readonly<Record<string, string>>;
  /** What the person is asked to confirm. */
  readonly question: string;
  /** The confirm button's text. */
  readonly confirm: string;
  /** Where "cancel" leads. */
  readonly back: string;
  readonly nav: ConsoleNav;
}

/**
 * The page that asks a person to confirm an action (an operator's end or event, a decision):
 * the same form again with `confirmed=yes`, and a link back that changes nothing. It works
 * without the page's script.
 */
export function renderConfirmPage(confirmation: ConsoleConfirmation): string {
  const hidden = Object.entries({ ...confirmation.fields, confirmed: 'yes' })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const main = `<h1>${escapeHtml(confirmTitle())}</h1>
<p class="notice" role="alert" id="confirm-question">${escapeHtml(confirmation.question)}</p>
<form method="post" action="${escapeHtml(confirmation.action)}" class="confirm">${hidden}<button type="submit" data-confirm>${escapeHtml(confirmation.confirm)}</button>
<a href="${escapeHtml(confirmation.back)}">${escapeHtml(confirmCancel())}</a></form>`;
  return renderPage({ title: confirmTitle(), root: confirmation.root, kind: 'error', main, nav: confirmation.nav });
}

/** What an action answered: done (with where to go on), or refused (with the gate's reason); `role="status"` or `role="alert"`. */
export function renderActionResult(result: {
  root: string;
  title: string;
  message: string;
  ok: boolean;
  links: ReadonlyArray<{ href: string; text: string }>;
  nav: ConsoleNav;
}): string {
  const links = result.links.map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></li>`).join('');
  const main = `<h1>${escapeHtml(result.title)}</h1>
<p class="notice" role="${result.ok ? 'status' : 'alert'}" id="action-result" data-ok="${result.ok}">${escapeHtml(result.message)}</p>
<ul class="links">${links}</ul>`;
  return renderPage({ title: result.title, root: result.root, kind: 'error', main, nav: result.nav });
}
