import { taskRecord } from '../testing/mcp-task-store.contract.js';
import { decodeTaskCursor, encodeTaskCursor, legacyTask, modernCreatedTask, modernDetailedTask } from './task-wire.js';

describe('the wire shapes of a task', () => {
  const record = { ...taskRecord('principal:alice', Date.UTC(2026, 11, 3, 12), 60_000), statusMessage: 'Waits for approval' };

  it('shows a 2025-11-25 task with ISO times, ttl and pollInterval', () => {
    expect(legacyTask(record)).toEqual({
      taskId: record.taskId,
      status: 'working',
      statusMessage: 'Waits for approval',
      createdAt: '2026-12-03T12:00:00.000Z',
      lastUpdatedAt: '2026-12-03T12:00:00.000Z',
      ttl: 60_000,
      pollInterval: 1_000,
    });
  });

  it('shows a 2026-07-28 task flat, with ttlMs and pollIntervalMs, and inlines what it ended with or waits for', () => {
    expect(modernCreatedTask(record)).toMatchObject({ resultType: 'task', taskId: record.taskId, ttlMs: 60_000, pollIntervalMs: 1_000 });
    expect(modernCreatedTask(record)).not.toHaveProperty('ttl');
    const result = { content: [{ type: 'text', text: 'done' }] };
    expect(modernDetailedTask({ ...record, status: 'completed', result })).toMatchObject({ status: 'completed', result });
    const error = { code: -32603, message: 'boom' };
    expect(modernDetailedTask({ ...record, status: 'failed', error })).toMatchObject({ error });
    const input = { inputRequests: { a: { method: 'elicitation/create' }, b: { method: 'elicitation/create' } }, answered: { a: {} } };
    const waiting = modernDetailedTask({ ...record, status: 'input_required', input });
    expect(waiting.inputRequests).toEqual({ b: { method: 'elicitation/create' } });
    expect(waiting).not.toHaveProperty('requestState');
  });

  it('round-trips a tasks/list cursor and refuses one it never gave', () => {
    expect(decodeTaskCursor(encodeTaskCursor({ createdAt: 12, taskId: 'x' }))).toEqual({ createdAt: 12, taskId: 'x' });
    expect(decodeTaskCursor('not-a-cursor')).toBeUndefined();
    expect(decodeTaskCursor(Buffer.from('[1.5,"x"]').toString('base64url'))).toBeUndefined();
  });
});
