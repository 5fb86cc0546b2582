import { jest } from '@jest/globals';
import { QueryDeadline } from './query-deadline.js';

describe('QueryDeadline', () => {
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('is only checked by the clock until its signal is asked for: no timer, and expired once the time has passed', () => {
    const deadline = new QueryDeadline(1000, () => 'too slow');
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(999);
    expect(deadline.expired).toBe(false);
    jest.advanceTimersByTime(1);
    expect(deadline.expired).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).message).toBe('too slow');
  });

  it('aborts its signal at the deadline, counted from its creation, when the signal was asked for on the way', () => {
    const deadline = new QueryDeadline(1000, () => 'too slow');
    jest.advanceTimersByTime(600);
    const { signal } = deadline;
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(399);
    expect(signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(deadline.expired).toBe(true);
  });

  it('rejects a race with the timeout error when the deadline passes first', async () => {
    const deadline = new QueryDeadline(1000, () => 'too slow');
    const raced = deadline.race(new Promise(() => undefined));
    jest.advanceTimersByTime(1000);
    await expect(raced).rejects.toThrow('too slow');
  });

  it('never expires once cleared before the deadline, and stops its timer', () => {
    const deadline = new QueryDeadline(1000, () => 'too slow');
    const { signal } = deadline;
    deadline.clear();
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(5000);
    expect(deadline.expired).toBe(false);
    expect(signal.aborted).toBe(false);
    expect(deadline.signal.aborted).toBe(false);
  });

  it('stays expired when cleared after the deadline passed unobserved', () => {
    const deadline = new QueryDeadline(1000, () => 'too slow');
    jest.advanceTimersByTime(1500);
    deadline.clear();
    expect(deadline.expired).toBe(true);
    expect((deadline.signal.reason as Error).message).toBe('too slow');
  });
});
