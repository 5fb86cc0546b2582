import { ageMs, checkNumericOption, count, type NumericOptionRange, timerMs } from '../checks/numeric-option.check.js';
import { InMemoryMcpTaskStore } from '../stores/in-memory-mcp-task.store.js';
import type { McpResolvedTaskOptions, McpTaskOptions } from './task-options.interface.js';
import * as messages from './tasks.messages.js';

/** `tasks` with its defaults; throws, naming the option and the value, for one out of its range (`checkNumericOption`). */
export function resolveTaskOptions(options: McpTaskOptions = {}): McpResolvedTaskOptions {
  const check = (option: keyof McpTaskOptions, value: number, range: NumericOptionRange): number =>
    checkNumericOption('McpModule', `tasks.${option}`, value, range);
  const resolved: McpResolvedTaskOptions = {
    store: options.store ?? new InMemoryMcpTaskStore(),
    defaultTtlMs: check('defaultTtlMs', options.defaultTtlMs ?? 86_400_000, ageMs()),
    maxTtlMs: check('maxTtlMs', options.maxTtlMs ?? 604_800_000, ageMs()),
    pollIntervalMs: check('pollIntervalMs', options.pollIntervalMs ?? 1_000, timerMs()),
    maxActivePerRequester: check('maxActivePerRequester', options.maxActivePerRequester ?? 100, count(1_000_000)),
    sweepIntervalMs: check('sweepIntervalMs', options.sweepIntervalMs ?? 60_000, timerMs()),
    leaseMs: check('leaseMs', options.leaseMs ?? 30_000, timerMs()),
  };
  if (resolved.defaultTtlMs > resolved.maxTtlMs) {
    throw new Error(messages.taskDefaultTtlTooLong(resolved.defaultTtlMs, resolved.maxTtlMs));
  }
  return resolved;
}
