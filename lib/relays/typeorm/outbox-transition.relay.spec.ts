import { DataSource } from 'typeorm';
import { storeInvalidTableName, storeUnsupportedDatabase } from '../../stores/stores.messages.js';
import { createOutboxMigration } from './fsm-outbox.migration.js';
import { OutboxTransitionRelay } from './outbox-transition.relay.js';
import { numericOptionInvalid } from '../../checks/checks.messages.js';

const sqlite = new DataSource({ type: 'better-sqlite3', database: ':memory:' });

describe('OutboxTransitionRelay options', () => {
  it.each(['mcp_fsm_outbox', 'Billing_Outbox', 'relay.mcp_fsm_outbox'])('accepts the table name %s', (tableName) => {
    expect(() => new OutboxTransitionRelay(sqlite, { tableName })).not.toThrow();
    expect(() => createOutboxMigration({ tableName })).not.toThrow();
  });

  it.each(['', 'outbox; DROP TABLE users', 'a.b.c', '1outbox', 'out-box', '"outbox"'])('refuses the table name %j', (tableName) => {
    expect(() => new OutboxTransitionRelay(sqlite, { tableName })).toThrow(storeInvalidTableName('OutboxTransitionRelay', tableName));
    expect(() => createOutboxMigration({ tableName })).toThrow(storeInvalidTableName('createOutboxMigration', tableName));
  });

  it.each([
    ['pollIntervalMs', 0],
    ['batchSize', -1],
    ['batchSize', 2.5],
    ['retentionMs', Number.NaN],
  ] as const)('refuses %s = %s', (name, value) => {
    const range = name === 'batchSize' ? { unit: '', min: 1, max: 100_000 } : { unit: 'milliseconds', min: 1, max: 2_147_483_647 };
    expect(() => new OutboxTransitionRelay(sqlite, { [name]: value })).toThrow(
      numericOptionInvalid('OutboxTransitionRelay', name, range, value),
    );
    expect(numericOptionInvalid('OutboxTransitionRelay', name, range, value)).toBe(
      `OutboxTransitionRelay: ${name} must be a whole number${range.unit ? ' of milliseconds' : ''} from 1 to ${range.max}; got ${value}.`,
    );
  });

  it('refuses a database type the store does not support', () => {
    const cockroach = new DataSource({ type: 'cockroachdb', url: 'postgres://127.0.0.1:26257/test', timeTravelQueries: false });
    expect(() => new OutboxTransitionRelay(cockroach)).toThrow(storeUnsupportedDatabase('OutboxTransitionRelay', 'cockroachdb'));
    expect(storeUnsupportedDatabase('OutboxTransitionRelay', 'cockroachdb')).toBe(
      'OutboxTransitionRelay does not support DataSource type "cockroachdb"; supported: postgres, mysql, mariadb, better-sqlite3.',
    );
  });

  it.each([0, -1, 2.5, Number.NaN])('refuses timeoutMs = %s', (timeoutMs) => {
    expect(() => new OutboxTransitionRelay(sqlite, { timeoutMs })).toThrow(
      `OutboxTransitionRelay: timeoutMs must be a whole number of milliseconds from 1 to 2147483647; got ${timeoutMs}.`,
    );
  });
});
