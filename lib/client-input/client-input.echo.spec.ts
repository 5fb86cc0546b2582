import { echo } from './client-input.echo.js';

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
