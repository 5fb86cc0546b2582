import { InMemoryMcpTaskStore } from '../stores/in-memory-mcp-task.store.js';
import type { McpResolvedTaskOptions, McpTaskOptions } from './task-options.interface.js';
import * as messages from './tasks.messages.js';

/** `tasks` with its defaults; throws, naming the option, for a value that is not a positive whole number. */
export function resolveTaskOptions(options: McpTaskOptions = {}): McpResolvedTaskOptions {
  const positive = (option: keyof McpTaskOptions, value: number): number => {
    if (!Number.isSafeInteger(value) || value <= 0) throw new Error(messages.taskOptionInvalid(option, value));
    return value;
  };
  const resolved: McpResolvedTaskOptions = {
    store: options.store ?? new InMemoryMcpTaskStore(),
    defaultTtlMs: positive('defaultTtlMs', options.defaultTtlMs ?? 86_400_000),
    maxTtlMs: positive('maxTtlMs', options.maxTtlMs ?? 604_800_000),
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs ?? 1_000),
    maxActivePerRequester: positive('maxActivePerRequester', options.maxActivePerRequester ?? 100),
    sweepIntervalMs: positive('sweepIntervalMs', options.sweepIntervalMs ?? 60_000),
    leaseMs: positive('leaseMs', options.leaseMs ?? 30_000),
  };
  if (resolved.defaultTtlMs > resolved.maxTtlMs) {
    throw new Error(messages.taskDefaultTtlTooLong(resolved.defaultTtlMs, resolved.maxTtlMs));
  }
  return resolved;
}
