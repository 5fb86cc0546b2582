import { activeNodes, machineGraph, pathOf, type DiagramNode } from '../diagram/machine-graph.js';
import type { McpMachine } from '../machines/machine.interface.js';
import type { DiagramBox, DiagramLayout } from './console-diagram.elk.js';
import { escapeHtml } from './console-html.js';

/** The states of a stored state value as the diagram marks them. */
export interface DiagramMarks {
  /** Paths of the active states without an active child: `aria-current="step"` and the visible mark. */
  current: string[];
  /** Paths of their active ancestors (drawn as the boxes around the current state). */
  within: string[];
}

/** A machine's graph, read once per machine (machines do not change while the app runs). */
const graphs = new WeakMap<McpMachine, DiagramNode>();

function graphOf(machine: McpMachine): DiagramNode {
  let root = graphs.get(machine);
  if (!root) {
    root = machineGraph(machine);
    graphs.set(machine, root);
  }
  return root;
}

/** The marks of `state` on `machine`'s diagram; none when `state` is no state value of the machine. */
export function diagramMarks(machine: McpMachine, state: string | undefined): DiagramMarks {
  if (state === undefined) return { current: [], within: [] };
  let active;
  try {
    active = activeNodes(graphOf(machine), machine.id, state);
  } catch {
    return { current: [], within: [] };
  }
  const paths = (nodes: typeof active) => nodes.map((node) => pathOf(node).join('.'));
  return {
    current: paths(active.filter((node) => !node.children.some((child) => active.includes(child)))),
    within: paths(active.filter((node) => node.children.some((child) => active.includes(child)))),
  };
}

/**
 * The machine's diagram as inline SVG, from its `layout` (see `layoutWithElk`): every state a
 * group with `data-state-node="<path>"`; the current ones with `aria-current="step"`, a thick
 * border and a ▶ mark before the name, so the mark does not rest on colour alone; a state where
 * a call waits for a person dashed (`data-waits`); each arrow a group with `data-from`,
 * `data-to` (and `data-internal` without a target, `data-approval` for `@McpApproval`'s). Styled
 * by the page's stylesheet (classes only: the page's Content-Security-Policy allows no inline style).
 */
export function renderDiagram(machine: McpMachine, marks: DiagramMarks, layout: DiagramLayout): string {
  const boxes = [...layout.boxes].sort((a, b) => Number(b.container) - Number(a.container));
  const current = new Set(marks.current);
  const within = new Set(marks.within);
  const titleId = `diagram-title-${escapeHtml(machine.id)}`;
  return [
    `<svg class="diagram" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" role="group" aria-labelledby="${titleId}">`,
    `<title id="${titleId}">States of ${escapeHtml(machine.id)}; the current state is marked with ▶ and a thick border</title>`,
    '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path class="arrowhead" d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>',
    '<g role="list">',
    ...boxes.map((box) => stateNode(box, current.has(box.path), within.has(box.path))),
    '</g>',
    '<g class="arrows" aria-hidden="true">',
    ...layout.initials.map(
      (initial) =>
        `<circle class="initial" cx="${initial.cx}" cy="${initial.cy}" r="6"/><path class="arrow" d="${initial.d}" marker-end="url(#arrowhead)"/>`,
    ),
    ...layout.arrows.map((arrow) => {
      const kind = arrow.kind === 'transition' ? '' : ` ${arrow.kind}`;
      const data = arrow.kind === 'internal' ? ' data-internal=""' : arrow.kind === 'approval' ? ' data-approval=""' : '';
      const { x, y, width, height } = arrow.labelBox;
      return (
        `<g class="edge" data-from="${escapeHtml(arrow.from)}" data-to="${escapeHtml(arrow.to)}"${data}>` +
        `<title>${escapeHtml(arrow.title)}</title>` +
        `<path class="arrow${kind}" d="${arrow.d}" marker-end="url(#arrowhead)"/>` +
        `<text class="edge-label" x="${x + width / 2}" y="${y + height - 4}" text-anchor="middle">${escapeHtml(arrow.label)}</text></g>`
      );
    }),
    '</g>',
    '</svg>',
  ].join('\n');
}

function stateNode(box: DiagramBox, isCurrent: boolean, isWithin: boolean): string {
  const kind = box.container ? (box.node.type === 'parallel' ? 'parallel' : 'compound') : box.node.type === 'final' ? 'final' : 'atomic';
  const attributes = [
    `class="state ${kind}${box.waits ? ' waits' : ''}"`,
    'role="listitem"',
    `data-state-node="${escapeHtml(box.path)}"`,
    `aria-label="${escapeHtml(box.path)}${box.node.type === 'final' ? ' (final)' : ''}${box.waits ? ' (waits for a person)' : ''}"`,
    isCurrent ? 'aria-current="step"' : '',
    isWithin ? 'data-within=""' : '',
    box.waits ? 'data-waits=""' : '',
  ].filter(Boolean);
  const rect = `<rect class="box" x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="${box.container ? 10 : 8}"/>`;
  const inner =
    box.node.type === 'final' && !box.container
      ? `<rect class="inner" x="${box.x + 4}" y="${box.y + 4}" width="${box.width - 8}" height="${box.height - 8}" rx="5"/>`
      : '';
  const label = box.container
    ? `<text class="label" x="${box.x + 12}" y="${box.y + 21}"><tspan class="mark">▶ </tspan>${escapeHtml(box.label)}</text>`
    : `<text class="label" x="${box.x + box.width / 2}" y="${box.y + box.height / 2 + 5}" text-anchor="middle"><tspan class="mark">▶ </tspan>${escapeHtml(box.label)}</text>`;
  return `<g ${attributes.join(' ')}>${rect}${inner}${label}</g>`;
}
