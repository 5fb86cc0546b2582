import * as typeorm from './typeorm.js';
import { mcpFsmMigrations, mcpFsmStateMigrations, mcpOutboxMigrations, mcpSessionMigrations, mcpTaskMigrations } from './typeorm.js';

/** Every migration class `nestjs-mcp-fsm/typeorm` exports: a class whose name ends with its 13-digit timestamp. */
const exportedMigrations = Object.entries(typeorm)
  .filter(([name, value]) => typeof value === 'function' && /\d{13}$/.test(name))
  .map(([, value]) => value);

describe('the shipped migration lists', () => {
  it('hold every exported migration once, oldest first', () => {
    expect(new Set(mcpFsmMigrations)).toEqual(new Set(exportedMigrations));
    expect(mcpFsmMigrations).toHaveLength(exportedMigrations.length);
    const stamps = mcpFsmMigrations.map((migration) => migration.name.slice(-13));
    expect(stamps).toEqual([...stamps].sort());
  });

  it('split by feature with nothing left over and nothing twice', () => {
    const features = [...mcpFsmStateMigrations, ...mcpSessionMigrations, ...mcpTaskMigrations, ...mcpOutboxMigrations];
    expect(features).toHaveLength(mcpFsmMigrations.length);
    expect(new Set(features)).toEqual(new Set(mcpFsmMigrations));
  });

  it('cannot be changed by an app', () => {
    expect(Object.isFrozen(mcpFsmMigrations)).toBe(true);
    expect(Object.isFrozen(mcpFsmStateMigrations)).toBe(true);
  });
});
