import { McpSessionRateLimiter } from './session-rate.limiter.js';

describe('McpSessionRateLimiter', () => {
  let now: number;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('grants perMinute sessions at once, then one more each 60/perMinute seconds, with the wait in seconds', () => {
    const limiter = new McpSessionRateLimiter(3, 100, clock);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(20);
    now += 15_000;
    expect(limiter.take('a')).toBe(5);
    now += 5_000;
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(20);
  });

  it('counts each client on its own', () => {
    const limiter = new McpSessionRateLimiter(1, 100, clock);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(60);
    expect(limiter.take('b')).toBe(0);
  });

  it('forgets clients whose allowance is full again, and keeps at most maxClients', () => {
    const limiter = new McpSessionRateLimiter(5, 3, clock);
    for (const client of ['a', 'b', 'c', 'd']) limiter.take(client);
    expect(limiter.size).toBe(3);
    now += 60_000;
    limiter.take('e');
    expect(limiter.size).toBe(1);
  });

  it('is off with Infinity', () => {
    const limiter = new McpSessionRateLimiter(Infinity, 100, clock);
    for (let i = 0; i < 1000; i += 1) expect(limiter.take('a')).toBe(0);
    expect(limiter.size).toBe(0);
  });
});
