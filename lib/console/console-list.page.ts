import { listSummary, listTitle } from './console.messages.js';
import { CONSOLE_COUNT_MAX, type ConsoleListView, type ConsoleMachine } from './console-data.js';
import { consoleTime, embeddedJson, escapeHtml } from './console-html.js';
import { consoleInstanceId, consoleInstancePath } from './console-instance-ref.js';
import { renderPage } from './console-page.shell.js';

/** What the list page needs besides its view. */
interface ConsoleListContext {
  /** The console's path. */
  root: string;
  machines: readonly ConsoleMachine[];
  pageSize: number;
  isFinal: (machine: string, state: string) => boolean;
  /** The header's sign-out form, for a browser signed in with the console's cookie. */
  signOut?: { root: string; csrf: string };
}

const ENDED = 'ended';
const NO_OWNER = '—';

/**
 * The list of instances: the filter form with a search by handle or owner (works without
 * JavaScript), how many match in all, a table with one row per instance (`data-instance`,
 * `data-machine`, `data-state`; a real link to its page), newest first, and links to older
 * pages. Live: the rows of the first page move as transitions arrive (not while searching).
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
    signOut: context.signOut,
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
  return `<form class="filter" method="get" action="${escapeHtml(context.root)}" role="search" aria-label="Filter instances">
<label for="filter-machine">Machine<select id="filter-machine" name="machine"><option value="">All machines</option>${machineOptions}</select></label>
<label for="filter-state">State<select id="filter-state" name="state"><option value="">Any state</option>${stateGroups}</select></label>
<label for="filter-search">Handle or owner<input id="filter-search" name="q" type="search" maxlength="255" autocomplete="off" spellcheck="false" value="${escapeHtml(search ?? '')}" placeholder="paymentId, session id or sub"></label>
<button type="submit">Filter</button>
<a href="${escapeHtml(context.root)}">Clear filter</a>
</form>`;
}

function table(view: Extract<ConsoleListView, { ok: true }>, context: ConsoleListContext): string {
  const first = view.filter.after === undefined;
  const rows = view.instances.map((instance) => {
    const id = consoleInstanceId(instance.key);
    const final = context.isFinal(instance.machine, instance.state);
    return `<tr data-instance="${escapeHtml(id)}" data-machine="${escapeHtml(instance.machine)}" data-state="${escapeHtml(instance.state)}">
<th scope="row" class="mono"><a href="${escapeHtml(consoleInstancePath(context.root, instance.machine, instance.key))}">${escapeHtml(id)}</a></th>
<td class="machine">${escapeHtml(instance.machine)}</td>
<td><span class="badge${final ? ' final' : ''}" data-ended="${ENDED}">${escapeHtml(instance.state)}</span></td>
<td class="owner mono" data-none="${NO_OWNER}">${escapeHtml(instance.owner ?? NO_OWNER)}</td>
<td><time datetime="${escapeHtml(instance.updatedAt)}">${escapeHtml(consoleTime(instance.updatedAt))}</time> <span class="ago" data-ago></span></td>
</tr>`;
  });
  const empty = `<tr class="empty-row"><td colspan="5" class="empty">No instances.</td></tr>`;
  const states = view.states ? ` data-states="${escapeHtml(embeddedJson(view.states))}"` : '';
  const total = view.total === undefined ? undefined : { count: view.total, max: CONSOLE_COUNT_MAX };
  const summary = listSummary(view.instances.length, view.filter.machine, view.filter.state, !first, view.filter.search, total);
  const counted = view.total === undefined ? '' : ` data-total="${view.total}"`;
  return `<p class="summary" id="summary" data-live-region${counted}>${escapeHtml(summary)}</p>
<div class="table-scroll">
<table class="instances" aria-describedby="summary">
<caption class="visually-hidden">Workflow instances, newest first</caption>
<thead><tr><th scope="col">Instance</th><th scope="col">Machine</th><th scope="col">State</th><th scope="col">Owner</th><th scope="col">Last change (UTC)</th></tr></thead>
<tbody id="instances" data-live-region data-first="${first}" data-limit="${context.pageSize}"${states}>
${rows.length ? rows.join('\n') : empty}
</tbody>
</table>
</div>`;
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
<th scope="row" class="mono"><a href=""></a></th><td class="machine"></td>
<td><span class="badge" data-ended="${ENDED}"></span></td><td class="owner mono" data-none="${NO_OWNER}">${NO_OWNER}</td><td><time></time> <span class="ago" data-ago></span></td>
</tr></template>`;
}
