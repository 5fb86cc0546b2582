import { z } from 'zod';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { GateVisit } from './gate-visit.js';
import { WorkflowCall, type MutableToolContext, type WorkflowRequest } from './workflow-call.js';
import { WorkflowCutoff } from './workflow-cutoff.js';

const target: McpHandlerDefinition = {
  kind: 'tool',
  name: 'order.status',
  inputSchema: z.object({}),
  role: { kind: 'ungated' },
  source: 'OrderTools.status',
  invoke: async () => undefined,
};

const request = (extra: Partial<WorkflowRequest> = {}): Omit<WorkflowRequest, 'transport'> => ({
  target,
  caller: { kind: 'stateless', sessionStoreKey: () => undefined },
  args: {},
  context: { toolName: 'order.status', extra: {} } as unknown as MutableToolContext,
  ...extra,
});

describe('WorkflowCall', () => {
  it('gives its handler a context of its own that holds the call; a copy of it, or the request’s, belongs to no call', () => {
    const sent = request({ idempotency: { key: 'k-1', requester: 'alice' } });
    const call = new WorkflowCall(sent, new GateVisit());
    expect(WorkflowCall.of(call.context)).toBe(call);
    expect(WorkflowCall.of({ ...call.context })).toBeUndefined();
    expect(WorkflowCall.of(sent.context)).toBeUndefined();
    expect(call.context).toMatchObject({ toolName: 'order.status', idempotencyKey: 'k-1' });
    expect(sent.context.idempotencyKey).toBeUndefined();
  });

  it('shows what the gate’s steps found in its context', () => {
    const call = new WorkflowCall(request(), new GateVisit());
    call.show({ machine: 'order', handle: 'o-1', state: 'placed' });
    call.show({ confirmation: { note: 'yes' } });
    expect(call.context).toMatchObject({ machine: 'order', handle: 'o-1', state: 'placed', confirmation: { note: 'yes' } });
  });

  it('is abandoned when its cutoff comes before its commit began, and never once its commit began', async () => {
    const controller = new AbortController();
    const cutoff = new WorkflowCutoff(controller.signal);
    const running = new WorkflowCall(request({ cutoff }), new GateVisit());
    const committing = new WorkflowCall(request({ cutoff }), new GateVisit());
    let finish!: (value: string) => void;
    const work = running.unlessAbandoned(() => new Promise<string>((resolve) => (finish = resolve)));
    committing.beginCommit();
    controller.abort(new Error('shutting down'));
    await expect(work).rejects.toThrow('shutting down');
    finish('late');
    expect(running.abandoned).toBe(true);
    expect(committing.abandoned).toBe(false);
    await expect(running.unlessAbandoned(async () => 'more')).rejects.toThrow('shutting down');
  });
});

describe('WorkflowCutoff', () => {
  it('runs what waits on it once when its signal aborts, and nothing a call stopped waiting for', () => {
    const controller = new AbortController();
    const cutoff = new WorkflowCutoff(controller.signal);
    const ran: string[] = [];
    cutoff.whenReached(() => ran.push('a'));
    const stop = cutoff.whenReached(() => ran.push('b'));
    stop();
    controller.abort('gone');
    controller.abort('again');
    expect(ran).toEqual(['a']);
    expect(cutoff.aborted).toBe(true);
    expect(cutoff.reason).toBe('gone');
  });
});

describe('GateVisit', () => {
  it('answers the admitted call until the gate settles it, then its report', async () => {
    const visit = new GateVisit();
    const admission = {
      instance: { machine: 'order', storeKey: 'order:o-1', scope: 'handle' as const },
      snapshot: { state: 'placed', updatedAt: '' },
      hold: { kind: 'none' as const },
    };
    visit.admit({ admission, decide: async () => undefined });
    expect(visit.admitted?.admission).toBe(admission);
    expect(visit.report).toBeUndefined();
    visit.endOwn();
    visit.settle({ settlement: { abandoned: false, asking: false }, extra: {} });
    expect(visit.admitted).toBeUndefined();
    expect(visit.endedOwn).toBe(true);
    expect(visit.report?.settlement).toEqual({ abandoned: false, asking: false });
  });
});
