import { createHash } from 'node:crypto';
import { liveStatus, movedAnnouncement } from './console.messages.js';
import { escapeHtml } from './console-html.js';
import { CONSOLE_SCRIPT } from './console-live.script.js';
import { CONSOLE_STYLE } from './console.style.js';

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The Content-Security-Policy of every console page: nothing from anywhere but the page's own
 * stylesheet and script (by their hashes), requests to this origin only (the live stream and
 * the re-read after a reconnect), no framing, no forms to elsewhere.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${hashOf(CONSOLE_STYLE)}`,
  `script-src ${hashOf(CONSOLE_SCRIPT)}`,
  "connect-src 'self'",
  'img-src data:',
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** What one console page is made of. */
interface ConsolePage {
  /** The page's `<title>` and what a live announcement names. */
  title: string;
  /** The console's own path (the list), for the header's link. */
  root: string;
  kind: 'list' | 'instance' | 'inbox' | 'error';
  /** The live stream the script follows; none for a page that does not update. */
  stream?: string;
  /** The inside of `<main>`, already escaped. */
  main: string;
  /** Templates the script clones, already escaped. */
  templates?: string;
  /** The header's links and sign-out form. */
  nav?: ConsoleNav;
}

/** What a page's header offers: the approvals inbox (when an app's machine has approvals), and the sign-out of a browser signed in with the console's cookie. */
export interface ConsoleNav {
  readonly inbox: boolean;
  readonly signOut?: { readonly root: string; readonly csrf: string };
}

/** The header's links: the list, and the approvals inbox when there is one. */
function navLinks(root: string, kind: ConsolePage['kind'], nav: ConsoleNav | undefined): string {
  if (!nav?.inbox) return '';
  const link = (href: string, text: string, current: boolean) =>
    `<a href="${escapeHtml(href)}"${current ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`;
  return `<nav class="sections" aria-label="Console">${link(root, 'Instances', kind === 'list')}${link(`${root}/approvals`, 'Approvals', kind === 'inbox')}</nav>`;
}

/** The header's sign-out button (a POST with the CSRF token), or nothing. */
function signOutForm(signOut: ConsoleNav['signOut']): string {
  if (!signOut) return '';
  return `<form class="sign-out" method="post" action="${escapeHtml(`${signOut.root}/sign-out`)}"><input type="hidden" name="csrf" value="${escapeHtml(signOut.csrf)}"><button type="submit">Sign out</button></form>`;
}

/** A whole console page: landmarks, a skip link, the live indicator, the `aria-live` region, the inline stylesheet and script. */
export function renderPage(page: ConsolePage): string {
  const stream = page.stream ? ` data-stream="${escapeHtml(page.stream)}"` : '';
  const live = page.stream
    ? `<span class="live" id="live-status" role="status" data-live="off" data-text-live="${liveStatus.live}" data-text-reconnecting="${liveStatus.reconnecting}" data-text-off="${liveStatus.off}" hidden>${liveStatus.off}</span>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(page.title)} · Workflow console</title>
<link rel="icon" href="data:,">
<style>${CONSOLE_STYLE}</style>
</head>
<body data-page="${page.kind}"${stream} data-title="${escapeHtml(page.title)}" data-moved="${movedAnnouncement}">
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="${escapeHtml(page.root)}">Workflow console</a>${navLinks(page.root, page.kind, page.nav)}${live}${signOutForm(page.nav?.signOut)}</header>
<main id="main" tabindex="-1">
${page.main}
<div id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
</main>
${page.templates ?? ''}
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>
`;
}
