import { McpKnownStates } from './mcp-known-states.js';

describe('McpKnownStates', () => {
  let known: McpKnownStates;
  const statesOf = (machine: string) => [...known.statesOf(machine)].sort();

  beforeEach(() => (known = new McpKnownStates()));

  it('counts the instances of each machine per state, as they move', () => {
    known.set('payment:p1', 'authorized');
    known.set('payment:p2', 'authorized');
    known.set('invoice:session:s1', 'draft');
    expect(statesOf('payment')).toEqual(['authorized']);
    known.set('payment:p1', 'captured');
    expect(statesOf('payment')).toEqual(['authorized', 'captured']);
    known.set('payment:p2', 'captured');
    expect(statesOf('payment')).toEqual(['captured']);
    known.delete('payment:p1');
    known.delete('payment:p2');
    expect(statesOf('payment')).toEqual([]);
    expect(statesOf('invoice')).toEqual(['draft']);
    expect(known.get('invoice:session:s1')).toBe('draft');
    expect(known.size).toBe(1);
  });

  it('changes its version with every change of a known state, and only then (a list is reused while it stays)', () => {
    const versions = [known.version];
    known.set('payment:p1', 'authorized');
    versions.push(known.version);
    known.set('payment:p1', 'authorized');
    known.delete('payment:p9');
    known.replace(new Map([['payment:p1', 'authorized']]));
    expect(known.version).toBe(versions[1]);
    known.set('payment:p1', 'captured');
    versions.push(known.version);
    known.delete('payment:p1');
    versions.push(known.version);
    expect(new Set(versions).size).toBe(4);
  });

  it('replaces the known states with exactly the ones read', () => {
    known.set('payment:p1', 'authorized');
    known.set('payment:p2', 'authorized');
    known.replace(
      new Map([
        ['payment:p2', 'refunded'],
        ['payment:p3', 'authorized'],
      ]),
    );
    expect(known.get('payment:p1')).toBeUndefined();
    expect(known.get('payment:p2')).toBe('refunded');
    expect(statesOf('payment')).toEqual(['authorized', 'refunded']);
    expect(known.instanceIn('payment', 'refunded')).toBe('payment:p2');
    expect(known.instanceIn('payment', 'voided')).toBeUndefined();
  });
});
