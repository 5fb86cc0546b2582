import { InMemoryMcpTaskStore } from '../stores/in-memory-mcp-task.store.js';
import { resolveTaskOptions } from './task-options.resolver.js';
import { taskDefaultTtlTooLong } from './tasks.messages.js';

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

  it('refuses a value that is not a whole number within its range, naming the option and the value', () => {
    expect(() => resolveTaskOptions({ maxActivePerRequester: 0 })).toThrow(
      'McpModule: tasks.maxActivePerRequester must be a whole number from 1 to 1000000; got 0.',
    );
    expect(() => resolveTaskOptions({ pollIntervalMs: 1.5 })).toThrow(
      'McpModule: tasks.pollIntervalMs must be a whole number of milliseconds from 1 to 2147483647; got 1.5.',
    );
    expect(() => resolveTaskOptions({ maxTtlMs: -1 })).toThrow('McpModule: tasks.maxTtlMs must be a whole number of milliseconds');
  });

  it('refuses a default ttl longer than the longest', () => {
    expect(() => resolveTaskOptions({ defaultTtlMs: 10_000, maxTtlMs: 5_000 })).toThrow(taskDefaultTtlTooLong(10_000, 5_000));
  });
});
