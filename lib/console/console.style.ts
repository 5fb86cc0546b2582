/**
 * The console's one stylesheet, inline in every page (allowed by its hash in the
 * Content-Security-Policy): system fonts only, light and dark by `prefers-color-scheme`, focus
 * always visible, state badges large enough to read from across the room.
 */
export const CONSOLE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #111827; --muted: #4b5563; --line: #d1d5db; --panel: #f3f4f6;
  --link: #1d4ed8; --focus: #b45309; --accent: #1e40af; --accent-fg: #ffffff;
  --badge-bg: #e0e7ff; --badge-fg: #1e1b4b; --final-bg: #e5e7eb; --final-fg: #111827;
  --box: #ffffff; --box-line: #6b7280; --container: #f9fafb; --flash: #fef3c7;
  --wait-bg: #fef3c7; --wait-fg: #78350f; --soon: #b91c1c;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0b1020; --fg: #f3f4f6; --muted: #cbd5e1; --line: #334155; --panel: #111a2e;
    --link: #93c5fd; --focus: #fbbf24; --accent: #fbbf24; --accent-fg: #111827;
    --badge-bg: #1e3a8a; --badge-fg: #eff6ff; --final-bg: #374151; --final-fg: #f9fafb;
    --box: #111a2e; --box-line: #94a3b8; --container: #0f172a; --flash: #78350f;
    --wait-bg: #78350f; --wait-fg: #fef3c7; --soon: #fca5a5;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, select:focus-visible, summary:focus-visible, [tabindex]:focus-visible {
  outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 2px;
}
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem 1rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; font-size: 1.125rem; color: var(--fg); text-decoration: none; }
header.top .brand:hover { text-decoration: underline; }
.live { margin-left: auto; font-weight: 600; display: inline-flex; align-items: center; gap: .4rem; }
.live[hidden] { display: none; }
.live::before { content: "●"; }
.live[data-live="reconnecting"]::before { content: "◌"; }
.live[data-live="off"]::before { content: "■"; }
main { padding: 1rem 1.5rem 3rem; max-width: 80rem; }
h1, h1 code, .line, dd.mono, td.args, td.reason, td.deadline, td.due, td.target, td.from-to { overflow-wrap: anywhere; }
.badge { overflow-wrap: normal; word-break: normal; white-space: nowrap; }
thead th { white-space: nowrap; }
nav.sections { display: flex; gap: 1rem; }
nav.sections a[aria-current="page"] { font-weight: 700; color: var(--fg); }
.line { color: var(--muted); margin: 0 0 .75rem; }
th .line { display: block; font-family: system-ui, sans-serif; font-weight: 400; font-size: .9rem; }
.line:empty { display: none; }
section.counts { display: flex; flex-wrap: wrap; gap: .5rem 2rem; margin: 1rem 0 0; }
section.counts h3 { font-size: .9rem; margin: 0 0 .25rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
section.counts ul { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; padding: 0; margin: 0; }
section.counts li a { display: inline-block; padding: .15rem .6rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; color: var(--fg); }
section.counts li.waits a { background: var(--wait-bg); color: var(--wait-fg); border: 2px solid currentColor; font-weight: 700; }
section.counts .count { font-weight: 700; }
.flag { display: block; font-size: .8rem; font-weight: 700; color: var(--wait-fg); }
.flag:empty { display: none; }
.badge.waiting { background: var(--wait-bg); color: var(--wait-fg); border-style: double; border-width: 4px; }
tr.waits > th { box-shadow: inset 6px 0 0 var(--wait-fg); }
tr[data-due-soon] td.deadline { color: var(--soon); font-weight: 700; }
tr[data-due-soon] td.deadline .in::before { content: "⚠ "; }
td.deadline time, td.due time { display: block; color: var(--muted); font-size: .85rem; }
.target { white-space: nowrap; }
section.actions .buttons, form.confirm { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
article.waiting { border: 1px solid var(--line); border-left: 6px solid var(--wait-fg); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
article.waiting h2 { margin: 0 0 .5rem; font-size: 1.1rem; }
.decide { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: end; margin-top: .75rem; }
.decide form.reject { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; }
.decide form.reject label { display: flex; flex-direction: column; font-weight: 600; font-size: .9rem; gap: .25rem; }
.decide input[name="reason"] { min-width: 14rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .95em; }
form.filter { display: flex; flex-wrap: wrap; align-items: end; gap: .75rem 1rem; padding: .75rem 1rem; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
form.filter label { display: flex; flex-direction: column; font-weight: 600; font-size: .9rem; gap: .25rem; }
select, button, input { font: inherit; padding: .4rem .6rem; border-radius: 6px; border: 1px solid var(--box-line); background: var(--bg); color: var(--fg); min-width: 10rem; }
button { min-width: 0; background: var(--accent); color: var(--accent-fg); border-color: var(--accent); font-weight: 600; cursor: pointer; }
.ago { color: var(--muted); font-size: .9rem; }
.summary { color: var(--muted); margin: 1rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
thead th { font-size: .85rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); border-bottom: 2px solid var(--line); }
tbody tr:hover { background: var(--panel); }
tr.flash { animation: flash 2.5s ease-out; }
@keyframes flash { from { background: var(--flash); } to { background: transparent; } }
@media (prefers-reduced-motion: reduce) { tr.flash { animation: none; outline: 2px solid var(--focus); } }
.badge { display: inline-block; font-weight: 700; font-size: 1.05rem; padding: .2rem .7rem; border-radius: 999px; background: var(--badge-bg); color: var(--badge-fg); border: 2px solid currentColor; font-family: ui-monospace, Menlo, Consolas, monospace; }
.badge.final { background: var(--final-bg); color: var(--final-fg); border-style: dashed; }
.badge.ended { background: transparent; color: var(--muted); border-style: dotted; }
.badge.big { font-size: 1.5rem; padding: .3rem 1rem; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1.25rem; margin: 0; }
.facts dt { font-weight: 600; color: var(--muted); }
.facts dd { margin: 0; }
nav.pages { display: flex; gap: 1.5rem; margin-top: 1rem; }
nav.crumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: 0 0 .5rem; }
nav.crumbs li + li::before { content: "›"; margin-right: .5rem; color: var(--muted); }
.notice { padding: .75rem 1rem; border: 2px solid var(--focus); border-radius: 8px; background: var(--panel); }
.empty { color: var(--muted); font-style: italic; }
figure { margin: 0; overflow-x: auto; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .5rem; }
figure.diagram-box svg.diagram { width: 100%; height: auto; max-width: 100%; }
figcaption { color: var(--muted); font-size: .9rem; padding: .25rem .5rem; }
pre.context { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
input[type="search"], input[type="password"] { min-width: 16rem; }
form.sign-in { display: flex; flex-wrap: wrap; align-items: end; gap: .75rem; }
form.sign-in label { display: flex; flex-direction: column; font-weight: 600; gap: .25rem; }
form.sign-out { margin-left: auto; }
.live + form.sign-out { margin-left: 1rem; }
.badge.refused { background: transparent; color: var(--fg); border-style: solid; font-size: .9rem; }
#instances th[scope="row"] a, td.owner, td.principal { overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  header.top { padding: .5rem .75rem; }
  main { padding: .75rem .75rem 2rem; }
  th, td { padding: .4rem .35rem; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.stack, table.stack tbody, table.stack tr, table.stack th[scope="row"], table.stack td { display: block; width: 100%; }
  table.stack tr { border-bottom: 2px solid var(--line); padding: .4rem 0; }
  table.stack td, table.stack th[scope="row"] { border: 0; padding: .15rem .35rem; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); font-family: system-ui, sans-serif; }
  table.stack td.empty::before { content: none; }
  table.instances td.machine, table.instances td.changed { display: none; }
  #instances th[scope="row"] a { word-break: break-all; }
  .badge { font-size: .9rem; padding: .1rem .5rem; }
  .badge.big { font-size: 1.1rem; }
  form.filter label, form.filter select, form.filter input, form.sign-in label, form.sign-in input { width: 100%; min-width: 0; }
  figure.diagram-box svg.diagram { width: auto; max-width: none; }
  .target { white-space: normal; }
  .badge { white-space: normal; overflow-wrap: anywhere; }
  thead th { white-space: normal; }
  td, th, dd { overflow-wrap: anywhere; }
  .decide input[name="reason"] { min-width: 0; width: 100%; }
}
svg.diagram { display: block; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 14px; }
svg.diagram .box { fill: var(--box); stroke: var(--box-line); stroke-width: 1.5; }
svg.diagram .compound > .box, svg.diagram .parallel > .box { fill: var(--container); stroke-dasharray: 6 4; }
svg.diagram .inner { fill: none; stroke: var(--box-line); stroke-width: 1.5; }
svg.diagram .label { fill: var(--fg); }
svg.diagram .compound > .label, svg.diagram .parallel > .label { font-weight: 700; }
svg.diagram .mark { display: none; }
svg.diagram [aria-current="step"] > .box { fill: var(--accent); stroke: var(--fg); stroke-width: 4; }
svg.diagram [aria-current="step"] > .inner { stroke: var(--accent-fg); }
svg.diagram [aria-current="step"] > .label { fill: var(--accent-fg); font-weight: 700; }
svg.diagram [aria-current="step"] > .label > .mark { display: inline; }
svg.diagram [data-within] > .box { stroke: var(--accent); stroke-width: 3; stroke-dasharray: none; }
svg.diagram .arrow { fill: none; stroke: var(--box-line); stroke-width: 1.5; }
svg.diagram .arrow.internal { stroke-dasharray: 4 3; }
svg.diagram .arrowhead, svg.diagram .initial { fill: var(--box-line); }
svg.diagram .edge-label { fill: var(--fg); font-size: 12px; paint-order: stroke; stroke: var(--panel); stroke-width: 4px; stroke-linejoin: round; }
svg.diagram .waits > .box { stroke-dasharray: 3 3; stroke-width: 2.5; }
svg.diagram .arrow.approval { stroke-dasharray: 6 3; }
`;
