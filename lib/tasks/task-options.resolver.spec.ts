import { InMemoryMcpTaskStore } from '../stores/in-memory-mcp-task.store.js';
import { resolveTaskOptions } from './task-options.resolver.js';
import { taskDefaultTtlTooLong, taskOptionInvalid } from './tasks.messages.js';

describe('resolveTaskOptions', () => {
  it('fills in every default', () => {
    const resolved = resolveTaskOptions();
    expect(resolved.store).toBeInstanceOf(InMemoryMcpTaskStore);
    expect({ ...resolved, store: undefined }).toEqual({
      store: undefined,
      defaultTtlMs: 86_400_000,
      maxTtlMs: 604_800_000,
      pollIntervalMs: 1_000,
      maxActivePerRequester: 100,
      sweepIntervalMs: 60_000,
      leaseMs: 30_000,
    });
  });

  it('refuses a value that is not a positive whole number, naming the option', () => {
    expect(() => resolveTaskOptions({ maxActivePerRequester: 0 })).toThrow(taskOptionInvalid('maxActivePerRequester', 0));
    expect(() => resolveTaskOptions({ pollIntervalMs: 1.5 })).toThrow(taskOptionInvalid('pollIntervalMs', 1.5));
    expect(taskOptionInvalid('maxActivePerRequester', 0)).toBe(
      'tasks.maxActivePerRequester must be a positive whole number of tasks, got 0.',
    );
    expect(taskOptionInvalid('maxTtlMs', -1)).toBe('tasks.maxTtlMs must be a positive whole number of milliseconds, got -1.');
  });

  it('refuses a default ttl longer than the longest', () => {
    expect(() => resolveTaskOptions({ defaultTtlMs: 10_000, maxTtlMs: 5_000 })).toThrow(taskDefaultTtlTooLong(10_000, 5_000));
  });
});
