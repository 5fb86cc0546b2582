import { ageMs, bytes, checkNumericOption, count, LONGEST_AGE_MS, LONGEST_TIMER_MS, timerMs } from './numeric-option.check.js';

describe('checkNumericOption', () => {
  it('answers a whole number within the range, its bounds included', () => {
    expect(checkNumericOption('McpModule', 'gate.leaseMs', 1, timerMs())).toBe(1);
    expect(checkNumericOption('McpModule', 'gate.leaseMs', LONGEST_TIMER_MS, timerMs())).toBe(LONGEST_TIMER_MS);
    expect(checkNumericOption('McpModule', 'transports.http.drainMs', 0, timerMs(0))).toBe(0);
    expect(checkNumericOption('McpModule', 'gate.retention.finishedMs', LONGEST_AGE_MS, ageMs())).toBe(LONGEST_AGE_MS);
    expect(checkNumericOption('Store', 'maxEntries', 10, count())).toBe(10);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5, '5', null, undefined, 2 ** 53])(
    'refuses %p as a lease, naming the owner, the option, the range and the value',
    (value) => {
      expect(() => checkNumericOption('McpModule', 'gate.leaseMs', value, timerMs())).toThrow(
        `McpModule: gate.leaseMs must be a whole number of milliseconds from 1 to 2147483647; got ${typeof value === 'string' ? '"5"' : String(value)}.`,
      );
    },
  );

  it('refuses a timer delay Node would fire at once (beyond 2^31 - 1 ms), and sizes and counts out of range', () => {
    expect(() => checkNumericOption('McpModule', 'gate.retention.intervalMs', LONGEST_TIMER_MS + 1, timerMs())).toThrow(
      'from 1 to 2147483647; got 2147483648.',
    );
    expect(() => checkNumericOption('OutboxTransitionRelay', 'maxReplyBytes', 0, bytes())).toThrow(
      'OutboxTransitionRelay: maxReplyBytes must be a whole number of bytes from 1 to 2147483647; got 0.',
    );
    expect(() => checkNumericOption('McpModule', 'console.pageSize', 1001, count(1_000))).toThrow(
      'McpModule: console.pageSize must be a whole number from 1 to 1000; got 1001.',
    );
  });
});
