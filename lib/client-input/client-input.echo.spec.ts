import { echo, echoArguments } from './client-input.echo.js';
import { MAX_ECHOED_ARGUMENTS } from './client-input.limits.js';

describe('echo', () => {
  it('repeats a value of up to 64 characters as it is', () => {
    expect(echo('')).toBe('');
    expect(echo('x'.repeat(64))).toBe('x'.repeat(64));
    expect(echo(42)).toBe('42');
  });

  it('cuts a longer value to its first 64 characters and an ellipsis', () => {
    expect(echo('x'.repeat(65))).toBe(`${'x'.repeat(64)}…`);
    expect(echo('y'.repeat(50 * 1024))).toHaveLength(65);
  });

  it('never cuts a character in half', () => {
    const value = `${'x'.repeat(63)}😀tail`;
    expect(echo(value)).toBe(`${'x'.repeat(63)}…`);
    expect(echo(`${'x'.repeat(62)}😀tail`)).toBe(`${'x'.repeat(62)}😀…`);
  });
});

describe('echoArguments', () => {
  it('keeps short values as they are, numbers, booleans and null included', () => {
    expect(echoArguments({ paymentId: 'pay_1', amount: 12.5, final: true, none: null })).toEqual({
      paymentId: 'pay_1',
      amount: 12.5,
      final: true,
      none: null,
    });
  });

  it('cuts long strings and names, and keeps nested values as their JSON text, cut', () => {
    const kept = echoArguments({ ['k'.repeat(100)]: 'v'.repeat(10_000), nested: { list: Array.from({ length: 1000 }, (_, i) => i) } });
    expect(kept).toEqual({
      [`${'k'.repeat(64)}…`]: `${'v'.repeat(64)}…`,
      nested: `${JSON.stringify({ list: Array.from({ length: 1000 }, (_, i) => i) }).slice(0, 64)}…`,
    });
  });

  it(`keeps the first ${MAX_ECHOED_ARGUMENTS} arguments only, so what is kept stays small whatever was sent`, () => {
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`arg${i}`, 'x'.repeat(1000)]));
    const kept = echoArguments(many);
    expect(Object.keys(kept)).toEqual(Array.from({ length: MAX_ECHOED_ARGUMENTS }, (_, i) => `arg${i}`));
    expect(JSON.stringify(kept).length).toBeLessThan(2_000);
  });

  it('writes what JSON cannot (a cycle, a BigInt, a non-finite number) as its string form', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(echoArguments({ cycle, big: 10n, inf: Infinity })).toEqual({ cycle: '[object Object]', big: '10', inf: 'Infinity' });
  });
});
