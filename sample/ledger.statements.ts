import type { DataSource, EntityManager } from 'typeorm';
import type { LedgerEntry, LedgerKind } from './ledger-entry.entity.js';

/** An entry as the payment tools write it (its `id` is the database's). */
export type NewLedgerEntry = Omit<LedgerEntry, 'id'>;

/**
 * The ledger's three statements (`sample_ledger`, see `LedgerEntry`), written once for the
 * DataSource's database and run with `EntityManager.query`: in the call's transaction for the
 * transition tools, on the DataSource for `payment.status`. Every payment tool reads or writes
 * the ledger, and a repository's `find` or `insert` builds its SQL and maps its rows on every
 * call; on SQLite, TypeORM also writes the numbers of a query it builds into the SQL text, so
 * each insert would be a new statement to prepare, pushing the workflow store's prepared
 * statements out of the driver's statement cache.
 */
export class LedgerStatements {
  private readonly insertSql: string;
  private readonly authorizationSql: string;
  private readonly entriesSql: string;

  constructor(dataSource: DataSource) {
    // The n-th parameter: `$n` on PostgreSQL, `?` on MySQL/MariaDB and SQLite.
    const param = dataSource.options.type === 'postgres' ? (n: number) => `$${n}` : () => '?';
    this.insertSql = `INSERT INTO sample_ledger (payment_id, kind, amount, currency, created_at) VALUES (${[1, 2, 3, 4, 5].map(param).join(', ')})`;
    this.authorizationSql = `SELECT amount, currency FROM sample_ledger WHERE payment_id = ${param(1)} AND kind = 'authorize'`;
    this.entriesSql = `SELECT kind, amount FROM sample_ledger WHERE payment_id = ${param(1)} ORDER BY id`;
  }

  /** Inserts one entry. */
  async insert(manager: EntityManager, entry: NewLedgerEntry): Promise<void> {
    await manager.query(this.insertSql, [entry.paymentId, entry.kind, entry.amount, entry.currency, entry.createdAt]);
  }

  /** The authorized amount and currency of a payment, or `undefined` without an authorization. */
  async authorization(manager: EntityManager, paymentId: string): Promise<{ amount: number; currency: string } | undefined> {
    const [row] = (await manager.query(this.authorizationSql, [paymentId])) as { amount: number | string; currency: string }[];
    return row && { amount: Number(row.amount), currency: row.currency };
  }

  /** Writes the `void` entry of a payment (its authorized amount) in `manager`'s transaction; throws when it has no authorization. */
  async void(manager: EntityManager, paymentId: string): Promise<NewLedgerEntry> {
    const authorization = await this.authorization(manager, paymentId);
    if (!authorization) throw new Error(`Payment "${paymentId}" has no authorization in the ledger.`);
    const entry = {
      paymentId,
      kind: 'void' as const,
      amount: authorization.amount,
      currency: authorization.currency,
      createdAt: Date.now(),
    };
    await this.insert(manager, entry);
    return entry;
  }

  /** A payment's entries, oldest first. */
  async entries(manager: EntityManager, paymentId: string): Promise<{ kind: LedgerKind; amount: number }[]> {
    const rows = (await manager.query(this.entriesSql, [paymentId])) as { kind: LedgerKind; amount: number | string }[];
    // PostgreSQL and MySQL return DECIMAL as a string.
    return rows.map(({ kind, amount }) => ({ kind, amount: Number(amount) }));
  }
}
