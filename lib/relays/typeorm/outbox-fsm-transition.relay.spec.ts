import { DataSource } from 'typeorm';
import { storeInvalidTableName, storeUnsupportedDatabase } from '../../stores/stores.messages.js';
import { createFsmOutboxMigration } from './fsm-outbox.migration.js';
import { OutboxFsmTransitionRelay } from './outbox-fsm-transition.relay.js';
import { outboxInvalidOption } from './relays.messages.js';

const sqlite = new DataSource({ type: 'better-sqlite3', database: ':memory:' });

describe('OutboxFsmTransitionRelay options', () => {
  it.each(['mcp_fsm_outbox', 'Billing_Outbox', 'relay.mcp_fsm_outbox'])('accepts the table name %s', (tableName) => {
    expect(() => new OutboxFsmTransitionRelay(sqlite, { tableName })).not.toThrow();
    expect(() => createFsmOutboxMigration({ tableName })).not.toThrow();
  });

  it.each(['', 'outbox; DROP TABLE users', 'a.b.c', '1outbox', 'out-box', '"outbox"'])('refuses the table name %j', (tableName) => {
    expect(() => new OutboxFsmTransitionRelay(sqlite, { tableName })).toThrow(storeInvalidTableName('OutboxFsmTransitionRelay', tableName));
    expect(() => createFsmOutboxMigration({ tableName })).toThrow(storeInvalidTableName('createFsmOutboxMigration', tableName));
  });

  it.each([
    ['pollIntervalMs', 0],
    ['batchSize', -1],
    ['batchSize', 2.5],
    ['retentionMs', Number.NaN],
  ] as const)('refuses %s = %s', (name, value) => {
    expect(() => new OutboxFsmTransitionRelay(sqlite, { [name]: value })).toThrow(outboxInvalidOption(name, value));
    expect(outboxInvalidOption(name, value)).toBe(`OutboxFsmTransitionRelay: option ${name} must be a positive integer; got ${value}.`);
  });

  it('refuses a database type the store does not support', () => {
    const cockroach = new DataSource({ type: 'cockroachdb', url: 'postgres://127.0.0.1:26257/test', timeTravelQueries: false });
    expect(() => new OutboxFsmTransitionRelay(cockroach)).toThrow(storeUnsupportedDatabase('OutboxFsmTransitionRelay', 'cockroachdb'));
    expect(storeUnsupportedDatabase('OutboxFsmTransitionRelay', 'cockroachdb')).toBe(
      'OutboxFsmTransitionRelay does not support DataSource type "cockroachdb"; supported: postgres, mysql, mariadb, better-sqlite3.',
    );
  });

  it.each([0, -1, 2.5, Number.NaN])('refuses timeoutMs = %s', (timeoutMs) => {
    expect(() => new OutboxFsmTransitionRelay(sqlite, { timeoutMs })).toThrow(
      `OutboxFsmTransitionRelay: timeoutMs must be a positive whole number of milliseconds, got ${timeoutMs}.`,
    );
  });
});
