import { relativeTime } from './console.messages.js';
import type { ConsoleDeadline } from './console-deadlines.js';
import { consoleTime, escapeHtml } from './console-html.js';

/** What a deadline cell shows when there is none. */
export const NO_DEADLINE = '—';

/**
 * A deadline as a cell shows it: its name, where it leads (`→ voided`), how far off it is from
 * `now` (`in 3 h`, kept current by the page's script through `data-in`) and its time in UTC.
 */
export function deadlineCell(deadline: ConsoleDeadline | undefined, now: number): string {
  if (!deadline) return NO_DEADLINE;
  const target = deadline.target ? ` <span class="target">→ ${escapeHtml(deadline.target)}</span>` : '';
  return (
    `<span class="deadline-name mono">${escapeHtml(deadline.name)}</span>${target} ` +
    `<span class="in" data-in="${escapeHtml(deadline.dueAt)}">${escapeHtml(relativeTime(Date.parse(deadline.dueAt) - now))}</span> ` +
    `<time datetime="${escapeHtml(deadline.dueAt)}">${escapeHtml(consoleTime(deadline.dueAt))}</time>`
  );
}
