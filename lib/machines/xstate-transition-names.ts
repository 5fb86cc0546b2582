/** How XState names what a transition reacts to and what guards it: shared by the engine's messages and the diagrams. */

/** XState's event descriptor matching: the exact type, `'*'`, or a `'prefix.*'` wildcard. */
export function matchesEventDescriptor(event: string, descriptor: string): boolean {
  if (descriptor === event || descriptor === '*') {
    return true;
  }
  if (!descriptor.endsWith('.*')) {
    return false;
  }
  const tokens = event.split('.');
  return descriptor
    .slice(0, -2)
    .split('.')
    .every((token, index) => token === tokens[index]);
}

/** A guard as XState names it: a string, `{ type }`, a named function, or `and`/`or`/`not` of guards. */
export function guardName(guard: unknown): string {
  if (typeof guard === 'string') {
    return guard;
  }
  if (typeof guard === 'function') {
    const { guards, stateValue } = guard as { guards?: unknown; stateValue?: unknown };
    if (Array.isArray(guards) && ['and', 'or', 'not'].includes(guard.name)) {
      return `${guard.name}(${guards.map(guardName).join(', ')})`;
    }
    if (guard.name === 'stateIn' && stateValue !== undefined) {
      return `stateIn(${typeof stateValue === 'string' ? stateValue : JSON.stringify(stateValue)})`;
    }
    // An inline arrow function is named after the config key it is written under.
    return guard.name && guard.name !== 'guard' ? guard.name : 'inline guard';
  }
  const { type } = (guard ?? {}) as { type?: unknown };
  return typeof type === 'string' ? type : 'inline guard';
}
