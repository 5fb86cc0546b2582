import { parseInstanceKey } from '../stores/fsm-instance-key.js';

/**
 * The last known state of each instance a session follows, counted per machine and state,
 * so a menu reads the distinct states of a machine without walking every instance.
 */
export class McpKnownStates {
  private readonly byKey = new Map<string, { machine: string; state: string }>();
  private readonly counts = new Map<string, Map<string, number>>();
  private changes = 0;

  /** Counts the changes of the known states: the same number means the same states, so the same menu. */
  get version(): number {
    return this.changes;
  }

  /** How many instances have a known state. */
  get size(): number {
    return this.byKey.size;
  }

  /** The known state of instance `storeKey`. */
  get(storeKey: string): string | undefined {
    return this.byKey.get(storeKey)?.state;
  }

  /** Records that instance `storeKey` is in `state`. */
  set(storeKey: string, state: string): void {
    const known = this.byKey.get(storeKey);
    if (known?.state === state) {
      return;
    }
    const machine = known?.machine ?? parseInstanceKey(storeKey).machine;
    if (known) {
      this.count(machine, known.state, -1);
    }
    this.byKey.set(storeKey, { machine, state });
    this.count(machine, state, 1);
    this.changes++;
  }

  /** Forgets the state of instance `storeKey`. */
  delete(storeKey: string): void {
    const known = this.byKey.get(storeKey);
    if (known) {
      this.byKey.delete(storeKey);
      this.count(known.machine, known.state, -1);
      this.changes++;
    }
  }

  /** Keeps exactly the states of `states`, touching only the instances whose state differs. */
  replace(states: ReadonlyMap<string, string>): void {
    for (const key of [...this.byKey.keys()]) {
      if (!states.has(key)) {
        this.delete(key);
      }
    }
    for (const [key, state] of states) {
      this.set(key, state);
    }
  }

  /** The distinct states the instances of `machine` are known in. */
  statesOf(machine: string): IterableIterator<string> {
    return (this.counts.get(machine) ?? new Map<string, number>()).keys();
  }

  /** One instance of `machine` known in `state`, to name it in a report. */
  instanceIn(machine: string, state: string): string | undefined {
    for (const [key, known] of this.byKey) {
      if (known.machine === machine && known.state === state) {
        return key;
      }
    }
    return undefined;
  }

  private count(machine: string, state: string, delta: 1 | -1): void {
    let states = this.counts.get(machine);
    if (!states) {
      states = new Map();
      this.counts.set(machine, states);
    }
    const count = (states.get(state) ?? 0) + delta;
    if (count > 0) {
      states.set(state, count);
    } else {
      states.delete(state);
    }
  }
}
