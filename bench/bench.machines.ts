import { defineMachine } from '../lib/index.js';

/** Session-keyed two-state loop: every gated call moves the session's instance, so every call is a transition. */
export const loopMachine = defineMachine({
  id: 'loop',
  initial: 'a',
  states: {
    a: { on: { FLIP: 'b' } },
    b: { on: { FLOP: 'a' } },
  },
});

/**
 * The loop with a deadline on `a` (a day: never due in a run), the same tools serve it: every
 * `loop.flop` schedules a timer in the state's write and every `loop.flip` deletes it.
 */
export const timedLoopMachine = defineMachine({
  id: 'loop',
  initial: 'a',
  states: {
    a: { after: { 86_400_000: 'b' }, on: { FLIP: 'b' } },
    b: { on: { FLOP: 'a' } },
  },
});

/** The delay of a hold (an hour); the firing row writes its timers already due. */
export const LAPSE_MS = 3_600_000;

/** Handle-keyed holds that lapse by themselves: what the firing row moves, no tool involved. */
export const lapseMachine = defineMachine(
  {
    id: 'lapse',
    initial: 'held',
    states: {
      held: { after: { [LAPSE_MS]: 'lapsed' } },
      lapsed: { type: 'final' },
    },
  },
  { stateHandleKey: 'holdId' },
);

/** The timer id (and event) XState gives the `after` of `lapse.held`. */
export const LAPSE_TIMER = `xstate.after.${LAPSE_MS}.lapse.held`;

/** Handle-keyed machine: `doc.open` mints a handle that stays live (non-final) in `draft`. */
export const docMachine = defineMachine(
  {
    id: 'doc',
    initial: 'draft',
    states: {
      draft: { on: { PUBLISH: 'published' } },
      published: { type: 'final' },
    },
  },
  { stateHandleKey: 'docId' },
);

/** Name, description and handle argument of the tools both servers list, so `tools/list` payloads match. */
export const BENCH_TOOLS = {
  echo: { name: 'echo', description: 'Answer ok (trivial tool, no arguments)' },
  flip: { name: 'loop.flip', description: 'Move the loop from a to b' },
  flop: { name: 'loop.flop', description: 'Move the loop from b to a' },
  open: { name: 'doc.open', description: 'Open a new document and return its docId' },
  edit: { name: 'doc.edit', description: 'Edit an open document' },
  publish: { name: 'doc.publish', description: 'Publish an open document' },
} as const;

/** What a session with live docs in `draft` and its loop in `a` is shown (the bare server lists exactly these). */
export const LISTED_WITH_LIVE_DOCS = [
  BENCH_TOOLS.echo.name,
  BENCH_TOOLS.flip.name,
  BENCH_TOOLS.open.name,
  BENCH_TOOLS.edit.name,
  BENCH_TOOLS.publish.name,
];
