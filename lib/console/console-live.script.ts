/**
 * The console's one script, inline in every page (allowed by its hash in the
 * Content-Security-Policy). The pages work without it; with it they follow the live stream
 * named by `body[data-stream]` (Server-Sent Events): a transition updates the row, or the
 * diagram mark, the pending deadlines, the history and the context, in place, and is announced in the `aria-live`
 * region. After a drop it reconnects (with backoff when the server refused), and re-reads the
 * page's live parts once connected again, so nothing missed meanwhile stays stale. It writes
 * only text and attributes, never HTML it received.
 */
export const CONSOLE_SCRIPT = `
(() => {
  const body = document.body;
  const status = document.getElementById('live-status');
  const announcer = document.getElementById('announcer');
  // Each cell of a table that stacks on a narrow screen names its column (what its header says).
  const label = (table) => {
    const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
    for (const row of table.querySelectorAll('tbody tr')) [...row.cells].forEach((cell, i) => names[i] && !cell.classList.contains('empty') && (cell.dataset.label = names[i]));
  };
  const labelAll = () => document.querySelectorAll('table.stack').forEach(label);
  labelAll();
  new MutationObserver(labelAll).observe(document.getElementById('main') ?? body, { childList: true, subtree: true });
  const setStatus = (kind) => {
    status.hidden = false;
    status.dataset.live = kind;
    status.textContent = status.dataset['text' + kind[0].toUpperCase() + kind.slice(1)];
  };
  const announce = (text) => { if (announcer) { announcer.textContent = ''; setTimeout(() => { announcer.textContent = text; }, 50); } };
  const time = (element, iso) => { if (!element) return; element.dateTime = iso; element.textContent = iso.slice(0, 10) + ' ' + iso.slice(11, 19) + 'Z'; };
  const badge = (element, state, final) => {
    if (!element) return;
    element.textContent = state === null ? element.dataset.ended : state;
    element.classList.toggle('final', Boolean(final));
    element.classList.toggle('ended', state === null);
  };
  const flash = (row) => { row.classList.remove('flash'); void row.offsetWidth; row.classList.add('flash'); };
  const ago = () => {
    for (const label of document.querySelectorAll('[data-ago]')) {
      const at = Date.parse(label.previousElementSibling?.getAttribute('datetime') ?? '');
      if (Number.isNaN(at)) continue;
      const s = Math.max(0, Math.round((Date.now() - at) / 1000));
      label.textContent = '(' + (s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min' : s < 86400 ? Math.floor(s / 3600) + ' h' : Math.floor(s / 86400) + ' d') + ' ago)';
    }
  };
  const inText = (ms) => {
    const s = Math.round(Math.abs(ms) / 1000);
    const amount = s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min' : s < 86400 ? Math.floor(s / 3600) + ' h' : Math.floor(s / 86400) + ' d';
    return ms >= 0 ? 'in ' + amount : amount + ' ago';
  };
  const until = () => {
    for (const label of document.querySelectorAll('[data-in]')) {
      const at = Date.parse(label.dataset.in);
      if (!Number.isNaN(at)) label.textContent = inText(at - Date.now());
    }
  };
  const tick = () => { ago(); until(); };
  tick();
  setInterval(tick, 5000);
  // The current state of a diagram wider than its box, in view.
  const current = document.querySelector('figure [aria-current="step"]');
  const box = current?.closest('figure');
  if (current && box && box.scrollWidth > box.clientWidth) {
    const at = current.getBoundingClientRect();
    const frame = box.getBoundingClientRect();
    box.scrollLeft += at.left - frame.left - (frame.width - at.width) / 2;
  }
  if (!body.dataset.stream || !window.EventSource || !status) return;
  const shortId = (id) => id.length > 12 ? id.slice(0, 8) + '…' : id;

  function applyToList(event) {
    const rows = document.getElementById('instances');
    if (!rows) return;
    const selector = 'tr[data-machine="' + CSS.escape(event.machine) + '"][data-instance="' + CSS.escape(event.instance) + '"]';
    let row = rows.querySelector(selector);
    const first = rows.dataset.first === 'true';
    if (!row) {
      const states = rows.dataset.states ? JSON.parse(rows.dataset.states) : null;
      const template = document.getElementById('row-template');
      if (event.state === null || !first || !template || (states && !states.includes(event.state))) return;
      row = template.content.firstElementChild.cloneNode(true);
      const link = row.querySelector('a');
      link.href = event.href;
      link.textContent = event.instance;
      row.querySelector('.machine').textContent = event.machine;
      row.dataset.machine = event.machine;
      row.dataset.instance = event.instance;
      rows.querySelector('tr.empty-row')?.remove();
    }
    row.dataset.state = event.state === null ? '' : event.state;
    badge(row.querySelector('.badge'), event.state, event.final);
    row.querySelector('.badge')?.classList.toggle('waiting', Boolean(event.waiting));
    row.classList.toggle('waits', Boolean(event.waiting));
    if (event.waiting) row.dataset.waiting = '';
    else delete row.dataset.waiting;
    const flag = row.querySelector('.flag');
    if (flag) flag.textContent = event.waiting ? flag.dataset.flag : '';
    if (event.summary !== undefined) {
      row.dataset.summary = event.summary;
      const line = row.querySelector('.line');
      if (line) line.textContent = event.summary;
    }
    if (event.updatedAt) time(row.querySelector('.changed time'), event.updatedAt);
    for (const [name, value] of [['owner', event.owner], ['team', event.team]]) {
      const cell = row.querySelector('.' + name);
      if (cell && value !== undefined) cell.textContent = value || cell.dataset.none;
    }
    const cell = row.querySelector('.deadline');
    if (cell && event.state !== undefined) {
      cell.replaceChildren();
      const deadline = event.deadline;
      if (!deadline) cell.textContent = cell.dataset.none;
      else {
        const add = (tag, className, text) => { const part = document.createElement(tag); if (className) part.className = className; part.textContent = text; cell.append(part, ' '); return part; };
        add('span', 'deadline-name mono', deadline.name);
        if (deadline.target) add('span', 'target', '→ ' + deadline.target);
        add('span', 'in', event.deadlineIn).dataset.in = deadline.dueAt;
        time(add('time', '', ''), deadline.dueAt);
      }
      const soon = Number(rows.dataset.dueSoonMs);
      row.toggleAttribute('data-due-soon', Boolean(deadline && Date.parse(deadline.dueAt) - Date.now() <= soon));
    }
    if (first) rows.prepend(row);
    const limit = Number(rows.dataset.limit);
    while (first && limit && rows.rows.length > limit) rows.rows[rows.rows.length - 1].remove();
    flash(row);
    tick();
    announce(event.machine + ' ' + shortId(event.instance) + ' ' + body.dataset.moved + ' ' + (event.state === null ? badgeEnded() : event.state));
  }

  function badgeEnded() { return document.querySelector('.badge')?.dataset.ended || ''; }

  function applyToInstance(event) {
    badge(document.getElementById('state-badge'), event.state, event.final);
    document.getElementById('state-badge')?.classList.toggle('waiting', Boolean(event.waiting));
    if (event.updatedAt) time(document.getElementById('updated-at'), event.updatedAt);
    const line = document.getElementById('summary-line');
    if (line && event.summary !== undefined) { line.textContent = event.summary; line.dataset.summary = event.summary; }
    for (const node of document.querySelectorAll('[data-state-node]')) {
      node.removeAttribute('aria-current');
      node.removeAttribute('data-within');
    }
    const node = (path) => document.querySelector('[data-state-node="' + CSS.escape(path) + '"]');
    for (const path of event.marks.current) node(path)?.setAttribute('aria-current', 'step');
    for (const path of event.marks.within) node(path)?.setAttribute('data-within', '');
    const history = document.getElementById('history');
    const template = document.getElementById('history-template');
    if (history && template && event.history) {
      const rows = event.history.map((entry) => {
        const row = template.content.firstElementChild.cloneNode(true);
        row.dataset.historyEntry = '';
        row.dataset.tool = entry.tool;
        time(row.querySelector('time'), entry.at);
        row.querySelector('.tool').textContent = entry.tool;
        row.querySelector('.event').textContent = entry.event ?? '—';
        row.querySelector('.from-to').textContent = (entry.from ?? '∅') + ' → ' + entry.to;
        const actor = row.querySelector('.principal');
        actor.textContent = entry.actor.text;
        actor.dataset.actor = entry.principal ?? '';
        actor.dataset.actorKind = entry.actor.kind;
        return row;
      });
      history.replaceChildren(...rows);
      if (rows[0]) flash(rows[0]);
    }
    const deadlines = document.getElementById('deadlines');
    const deadlineTemplate = document.getElementById('deadline-template');
    if (deadlines && deadlineTemplate && event.deadlines) {
      const rows = event.deadlines.map((deadline) => {
        const row = deadlineTemplate.content.firstElementChild.cloneNode(true);
        Object.assign(row.dataset, { deadline: deadline.id, event: deadline.event, dueAt: deadline.dueAt, attempts: String(deadline.attempts) });
        row.querySelector('.name').textContent = deadline.name;
        row.querySelector('.target').textContent = deadline.target ?? '—';
        row.querySelector('.target').dataset.target = deadline.target ?? '';
        row.querySelector('.event').textContent = deadline.event;
        const due = row.querySelector('.in');
        due.dataset.in = deadline.dueAt;
        due.textContent = deadline.inText;
        time(row.querySelector('time'), deadline.dueAt);
        row.querySelector('.attempts').textContent = deadline.attemptsText;
        return row;
      });
      if (!rows.length) {
        const row = document.createElement('tr');
        const cell = row.insertCell();
        row.className = 'empty-row';
        cell.colSpan = 5;
        cell.className = 'empty';
        cell.textContent = deadlines.dataset.none;
        rows.push(row);
      }
      deadlines.replaceChildren(...rows);
    }
    tick();
    const context = document.getElementById('context');
    if (context && event.context !== undefined) context.textContent = event.context;
    announce(body.dataset.title + ' ' + body.dataset.moved + ' ' + (event.state === null ? badgeEnded() : event.state));
  }

  async function refresh() {
    try {
      const response = await fetch(location.href, { headers: { Accept: 'text/html' }, cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
      const focused = document.activeElement?.closest('tr')?.dataset.instance;
      for (const region of document.querySelectorAll('[data-live-region]')) {
        const next = fresh.getElementById(region.id);
        if (next) region.replaceWith(document.importNode(next, true));
      }
      tick();
      if (focused) document.querySelector('tr[data-instance="' + CSS.escape(focused) + '"] a')?.focus();
    } catch {}
  }

  let source;
  let ended = false;
  let opened = false;
  let backoff = 1000;
  function connect() {
    source = new EventSource(body.dataset.stream);
    source.addEventListener('open', () => {
      setStatus('live');
      if (opened) refresh();
      opened = true;
      backoff = 1000;
    });
    source.addEventListener('transition', (message) => {
      const event = JSON.parse(message.data);
      // The inbox re-reads itself: a request that came or went shows at once.
      if (body.dataset.page === 'inbox') {
        // Not while the person writes a reason: the next transition, or a reload, brings the page up to date.
        if (!document.activeElement?.closest('#inbox form')) refresh();
      }
      else (body.dataset.page === 'list' ? applyToList : applyToInstance)(event);
    });
    source.addEventListener('ended', (message) => {
      // The sign-in expired or the person signed out: the page stops following, and says so.
      ended = true;
      source.close();
      setStatus('off');
      const notice = document.createElement('p');
      notice.className = 'notice';
      notice.id = 'stream-ended';
      notice.setAttribute('role', 'alert');
      notice.textContent = JSON.parse(message.data).message;
      document.getElementById('main')?.prepend(notice);
    });
    source.addEventListener('error', () => {
      if (ended) return;
      setStatus('reconnecting');
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 30000);
      }
    });
  }
  connect();
  addEventListener('pagehide', () => source?.close());
  // Back from the back/forward cache: the stream was closed on pagehide; reconnect (and re-read).
  addEventListener('pageshow', (event) => event.persisted && !ended && connect());
})();
`;
