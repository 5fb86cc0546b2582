import { countsTitle, listSummary, listTitle, searchPlaceholder, waitingBadge } from './console.messages.js';
import type { ConsoleMachine } from './console-catalog.js';
import { CONSOLE_COUNT_MAX, type ConsoleListRow, type ConsoleListView, type ConsoleStateCount } from './console-data.js';
import { deadlineCell, NO_DEADLINE } from './console-deadline.cell.js';
import { consoleTime, embeddedJson, escapeHtml } from './console-html.js';
import { consoleInstanceId, consoleInstancePath } from './console-instance-ref.js';
import { renderPage, type ConsoleNav } from './console-page.shell.js';

/** What the list page needs besides its view. */
interface ConsoleListContext {
  /** The console's path. */
  root: string;
  machines: readonly ConsoleMachine[];
  pageSize: number;
  /** When the page was made (epoch ms): what "in 3 h" counts from. */
  now: number;
  /** A deadline due within this long makes its row stand out. */
  dueSoonMs: number;
  /** The header's links and sign-out form. */
  nav: ConsoleNav;
}

const ENDED = 'ended';
const NO_VALUE = '—';

/**
 * The list of instances: the filter form with a search by handle or owner (works without
 * JavaScript), how many match in all and in each machine and state (each a link to its filter),
 * a table with one row per instance (`data-instance`, `data-machine`, `data-state`,
 * `data-summary`; a real link to its page), newest first, and links to older pages. A row in a
 * state that waits for a person (`data-waiting`), or with a deadline due soon (`data-due-soon`),
 * stands out. Live: the rows of the first page move as transitions arrive (not while searching).
 */
export function renderListPage(view: ConsoleListView, context: ConsoleListContext): string {
  const { filter } = view;
  const query = new URLSearchParams();
  if (filter.machine) query.set('machine', filter.machine);
  if (filter.state) query.set('state', filter.state);
  const stream = filter.search ? undefined : `${context.root}/events${query.size ? `?${query}` : ''}`;
  if (filter.search) query.set('q', filter.search);
  const main = [
    `<h1>${listTitle()}</h1>`,
    filterForm(view, context),
    view.ok && view.counts?.length ? countsSection(view.counts, context.root, filter.search) : '',
    view.ok ? table(view, context) : `<p class="notice" role="alert">${escapeHtml(view.error)}</p>`,
    view.ok ? pages(view, context.root, query) : '',
  ].join('\n');
  return renderPage({
    title: listTitle(),
    root: context.root,
    kind: 'list',
    stream: view.ok ? stream : undefined,
    main,
    templates: rowTemplate(),
    nav: context.nav,
  });
}

function filterForm(view: ConsoleListView, context: ConsoleListContext): string {
  const { machine, state, search } = view.filter;
  const machineOptions = context.machines
    .map((known) => `<option value="${escapeHtml(known.id)}"${known.id === machine ? ' selected' : ''}>${escapeHtml(known.id)}</option>`)
    .join('');
  const stateGroups = context.machines
    .filter((known) => !machine || known.id === machine)
    .map(
      (known) =>
        `<optgroup label="${escapeHtml(known.id)}">${known.states
          .map((path) => `<option value="${escapeHtml(path)}"${path === state ? ' selected' : ''}>${escapeHtml(path)}</option>`)
          .join('')}</optgroup>`,
    )
    .join('');
  const handleKeys = [...new Set(context.machines.flatMap((known) => known.machine.stateHandleKey ?? []))];
  const sessions = context.machines.some((known) => known.machine.stateHandleKey === undefined);
  return `<form class="filter" method="get" action="${escapeHtml(context.root)}" role="search" aria-label="Filter instances">
<label for="filter-machine">Machine<select id="filter-machine" name="machine"><option value="">All machines</option>${machineOptions}</select></label>
<label for="filter-state">State<select id="filter-state" name="state"><option value="">Any state</option>${stateGroups}</select></label>
<label for="filter-search">Handle or owner<input id="filter-search" name="q" type="search" maxlength="255" autocomplete="off" spellcheck="false" value="${escapeHtml(search ?? '')}" placeholder="${escapeHtml(searchPlaceholder(handleKeys, sessions))}"></label>
<button type="submit">Filter</button>
<a href="${escapeHtml(context.root)}">Clear filter</a>
</form>`;
}

/** How many instances are in each state, per machine: each count a link to the list of that state. */
function countsSection(counts: readonly ConsoleStateCount[], root: string, search: string | undefined): string {
  const byMachine = new Map<string, ConsoleStateCount[]>();
  for (const count of counts) byMachine.set(count.machine, [...(byMachine.get(count.machine) ?? []), count]);
  const groups = [...byMachine].map(([machine, states]) => {
    const links = [...states]
      .sort((a, b) => Number(b.waiting) - Number(a.waiting) || b.count - a.count || a.state.localeCompare(b.state))
      .map((count) => {
        const query = new URLSearchParams({ machine, state: count.state });
        if (search) query.set('q', search);
        return `<li${count.waiting ? ' class="waits" data-waiting' : ''} data-machine="${escapeHtml(machine)}" data-state="${escapeHtml(count.state)}" data-count="${count.count}"><a href="${escapeHtml(`${root}?${query}`)}"><span class="state-name">${escapeHtml(count.state)}</span> <span class="count">${count.count}</span>${count.waiting ? ` <span class="flag">${escapeHtml(waitingBadge())}</span>` : ''}</a></li>`;
      });
    return `<div class="count-group"><h3>${escapeHtml(machine)}</h3><ul>${links.join('')}</ul></div>`;
  });
  return `<section class="counts" aria-labelledby="counts-heading"><h2 id="counts-heading" class="visually-hidden">${escapeHtml(countsTitle())}</h2>${groups.join('')}</section>`;
}

function table(view: Extract<ConsoleListView, { ok: true }>, context: ConsoleListContext): string {
  const first = view.filter.after === undefined;
  const rows = view.rows.map((row) => rowHtml(row, context));
  const empty = `<tr class="empty-row"><td colspan="7" class="empty">No instances.</td></tr>`;
  const states = view.states ? ` data-states="${escapeHtml(embeddedJson(view.states))}"` : '';
  const total = view.total === undefined ? undefined : { count: view.total, max: CONSOLE_COUNT_MAX };
  const summary = listSummary(view.rows.length, view.filter.machine, view.filter.state, !first, view.filter.search, total);
  const counted = view.total === undefined ? '' : ` data-total="${view.total}"`;
  return `<p class="summary" id="summary" data-live-region${counted}>${escapeHtml(summary)}</p>
<table class="instances stack" aria-describedby="summary">
<caption class="visually-hidden">Workflow instances, newest first</caption>
<thead><tr><th scope="col">Instance</th><th scope="col">Machine</th><th scope="col">State</th><th scope="col">Team</th><th scope="col">Owner</th><th scope="col">Next deadline</th><th scope="col">Last change (UTC)</th></tr></thead>
<tbody id="instances" data-live-region data-first="${first}" data-limit="${context.pageSize}" data-due-soon-ms="${context.dueSoonMs}"${states}>
${rows.length ? rows.join('\n') : empty}
</tbody>
</table>`;
}

function rowHtml(row: ConsoleListRow, context: ConsoleListContext): string {
  const id = consoleInstanceId(row.key);
  const soon = row.deadline !== undefined && Date.parse(row.deadline.dueAt) - context.now <= context.dueSoonMs;
  const flags = `${row.waiting ? ' class="waits" data-waiting' : ''}${soon ? ' data-due-soon' : ''}`;
  return `<tr data-instance="${escapeHtml(id)}" data-machine="${escapeHtml(row.machine)}" data-state="${escapeHtml(row.state)}" data-summary="${escapeHtml(row.summary ?? '')}"${flags}>
<th scope="row" class="mono instance"><a href="${escapeHtml(consoleInstancePath(context.root, row.machine, row.key))}">${escapeHtml(id)}</a><span class="line">${escapeHtml(row.summary ?? '')}</span></th>
<td class="machine">${escapeHtml(row.machine)}</td>
<td class="state"><span class="badge${row.final ? ' final' : ''}${row.waiting ? ' waiting' : ''}" data-ended="${ENDED}">${escapeHtml(row.state)}</span><span class="flag" data-flag="${escapeHtml(waitingBadge())}">${row.waiting ? escapeHtml(waitingBadge()) : ''}</span></td>
<td class="team mono" data-none="${NO_VALUE}">${escapeHtml(row.team ?? NO_VALUE)}</td>
<td class="owner mono" data-none="${NO_VALUE}">${escapeHtml(row.owner ?? NO_VALUE)}</td>
<td class="deadline" data-none="${NO_DEADLINE}">${deadlineCell(row.deadline, context.now)}</td>
<td class="changed"><time datetime="${escapeHtml(row.updatedAt)}">${escapeHtml(consoleTime(row.updatedAt))}</time> <span class="ago" data-ago></span></td>
</tr>`;
}

function pages(view: Extract<ConsoleListView, { ok: true }>, root: string, query: URLSearchParams): string {
  const links: string[] = [];
  if (view.filter.after !== undefined) links.push(`<a href="${escapeHtml(`${root}${query.size ? `?${query}` : ''}`)}">Newest</a>`);
  if (view.next) {
    const older = new URLSearchParams(query);
    older.set('after', view.next);
    links.push(`<a rel="next" href="${escapeHtml(`${root}?${older}`)}">Older instances</a>`);
  }
  return links.length ? `<nav class="pages" aria-label="Pages">${links.join('')}</nav>` : '';
}

function rowTemplate(): string {
  return `<template id="row-template"><tr>
<th scope="row" class="mono instance"><a href=""></a><span class="line"></span></th><td class="machine"></td>
<td class="state"><span class="badge" data-ended="${ENDED}"></span><span class="flag" data-flag="${escapeHtml(waitingBadge())}"></span></td>
<td class="team mono" data-none="${NO_VALUE}">${NO_VALUE}</td><td class="owner mono" data-none="${NO_VALUE}">${NO_VALUE}</td>
<td class="deadline" data-none="${NO_DEADLINE}">${NO_DEADLINE}</td>
<td class="changed"><time></time> <span class="ago" data-ago></span></td>
</tr></template>`;
}
