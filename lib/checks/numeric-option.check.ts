import { numericOptionInvalid } from './checks.messages.js';

/** What a numeric option may be: a whole number from `min` to `max`, counted in `unit` (which its error names), or `Infinity` when `unlimited`. */
export interface NumericOptionRange {
  readonly unit: 'milliseconds' | 'bytes' | '';
  readonly min: number;
  readonly max: number;
  /** `Infinity` is taken too: the option documents it as "no limit". */
  readonly unlimited?: boolean;
}

/** The longest delay Node's timers take: a longer one fires at once (a lease renewed, a sweep run, without end). */
export const LONGEST_TIMER_MS = 2_147_483_647;
/** The longest age an option may give (100 years): `Date.now()` plus it stays an exact number. */
export const LONGEST_AGE_MS = 100 * 365 * 86_400_000;
/** The largest count an option may give (rows, sessions, entries, calls). */
export const LARGEST_COUNT = 2_147_483_647;

/** Milliseconds a timer waits (a lease, an interval, a time limit): `min` (default 1) up to {@link LONGEST_TIMER_MS}. */
export const timerMs = (min = 1): NumericOptionRange => ({ unit: 'milliseconds', min, max: LONGEST_TIMER_MS });

/** Milliseconds an age or a lifetime lasts (compared with clocks, never waited on): `min` (default 1) up to {@link LONGEST_AGE_MS}. */
export const ageMs = (min = 1): NumericOptionRange => ({ unit: 'milliseconds', min, max: LONGEST_AGE_MS });

/** A number of things: from `min` (default 1) up to `max` (default {@link LARGEST_COUNT}). */
export const count = (max = LARGEST_COUNT, min = 1): NumericOptionRange => ({ unit: '', min, max });

/** {@link count}, or `Infinity` for no limit at all. */
export const countOrUnlimited = (max = LARGEST_COUNT, min = 1): NumericOptionRange => ({ ...count(max, min), unlimited: true });

/** A size in bytes: 1 up to {@link LARGEST_COUNT}. */
export const bytes = (): NumericOptionRange => ({ unit: 'bytes', min: 1, max: LARGEST_COUNT });

/**
 * `value` when it is a whole number within `range`; otherwise throws, naming `owner` (the module,
 * a store, a relay), the option `name` and the value: 0, a negative number, NaN, Infinity, a
 * fraction or a string never reach a lease, a timer or a bound. The one check every numeric
 * option goes through, at startup.
 *
 * @example
 * const leaseMs = checkNumericOption('McpModule', 'gate.leaseMs', options.leaseMs ?? 15_000, timerMs());
 */
export function checkNumericOption(owner: string, name: string, value: unknown, range: NumericOptionRange): number {
  if (range.unlimited && value === Number.POSITIVE_INFINITY) return value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new Error(numericOptionInvalid(owner, name, range, value));
  }
  return value;
}
