import { activeNodes, machineGraph, pathOf, type DiagramNode } from '../diagram/machine-graph.js';
import type { McpMachine } from '../machines/machine.interface.js';
import { layoutDiagram, type DiagramBox, type DiagramLayout } from './console-diagram.layout.js';
import { escapeHtml } from './console-html.js';

/** The states of a stored state value as the diagram marks them. */
export interface DiagramMarks {
  /** Paths of the active states without an active child: `aria-current="step"` and the visible mark. */
  current: string[];
  /** Paths of their active ancestors (drawn as the boxes around the current state). */
  within: string[];
}

/** A machine's graph and layout, computed once per machine (machines do not change while the app runs). */
const drawings = new WeakMap<McpMachine, { root: DiagramNode; layout: DiagramLayout }>();

function drawingOf(machine: McpMachine): { root: DiagramNode; layout: DiagramLayout } {
  let drawing = drawings.get(machine);
  if (!drawing) {
    const root = machineGraph(machine);
    drawing = { root, layout: layoutDiagram(root) };
    drawings.set(machine, drawing);
  }
  return drawing;
}

/** The marks of `state` on `machine`'s diagram; none when `state` is no state value of the machine. */
export function diagramMarks(machine: McpMachine, state: string | undefined): DiagramMarks {
  if (state === undefined) return { current: [], within: [] };
  const { root } = drawingOf(machine);
  let active;
  try {
    active = activeNodes(root, machine.id, state);
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
 * The machine's diagram as inline SVG (see `layoutDiagram`): every state a group with
 * `data-state-node="<path>"`; the current ones with `aria-current="step"`, a thick border and a
 * ▶ mark before the name, so the mark does not rest on colour alone. Styled by the page's
 * stylesheet (classes only, no inline styles: the page's Content-Security-Policy allows none).
 */
export function renderDiagram(machine: McpMachine, marks: DiagramMarks): string {
  const { layout } = drawingOf(machine);
  const boxes = [...layout.boxes].sort((a, b) => Number(b.container) - Number(a.container));
  const current = new Set(marks.current);
  const within = new Set(marks.within);
  const titleId = `diagram-title-${escapeHtml(machine.id)}`;
  return [
    `<svg class="diagram" xmlns="http://www.w3.org/2000/svg" viewBox="0 ${layout.top} ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" role="group" aria-labelledby="${titleId}">`,
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
    ...layout.arrows.map(
      (arrow) =>
        `<g class="edge" data-from="${escapeHtml(arrow.from)}" data-to="${escapeHtml(arrow.to)}"${arrow.internal ? ' data-internal=""' : ''}>` +
        `<title>${escapeHtml(arrow.title)}${arrow.internal ? ' (no target: stays)' : ''}</title>` +
        `<path class="arrow${arrow.internal ? ' internal' : ''}" d="${arrow.d}" marker-end="url(#arrowhead)"/>` +
        `<text class="edge-label" x="${arrow.labelX}" y="${arrow.labelY}" text-anchor="middle">${escapeHtml(arrow.label)}</text></g>`,
    ),
    '</g>',
    '</svg>',
  ].join('\n');
}

function stateNode(box: DiagramBox, isCurrent: boolean, isWithin: boolean): string {
  const kind = box.container ? (box.node.type === 'parallel' ? 'parallel' : 'compound') : box.node.type === 'final' ? 'final' : 'atomic';
  const attributes = [
    `class="state ${kind}"`,
    'role="listitem"',
    `data-state-node="${escapeHtml(box.path)}"`,
    `aria-label="${escapeHtml(box.path)}${box.node.type === 'final' ? ' (final)' : ''}"`,
    isCurrent ? 'aria-current="step"' : '',
    isWithin ? 'data-within=""' : '',
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
