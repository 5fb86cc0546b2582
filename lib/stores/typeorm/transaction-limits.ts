import type { DataSource, QueryRunner } from 'typeorm';
import type { FsmSqlDialect } from './typeorm-sql.js';
import { sqliteInTransaction } from './query-deadline.js';
import { runnerDataSource } from './query-runner-source.js';

type MysqlFlavour = 'mariadb' | 'mysql';

/** Whether each MySQL-family DataSource is MariaDB or MySQL, learnt from its first transaction. */
const flavours = new WeakMap<DataSource, MysqlFlavour>();

/** MySQL's ER_UNKNOWN_SYSTEM_VARIABLE: the server is MySQL, which lacks MariaDB's variables. */
const UNKNOWN_SYSTEM_VARIABLE_ERRNO = 1193;

/**
 * Begins and ends the store's transactions with server-side limits, so that the server rolls
 * back a transaction whose client it can no longer reach within `timeoutMs` of its last
 * statement. What each database sets: see docs/stores.md#server-side-limits-per-database.
 */
export class TransactionLimits {
  constructor(
    private readonly dialect: FsmSqlDialect,
    private readonly timeoutMs: number,
  ) {}

  /** Starts a transaction on `runner` with the limits; on an error, the connection is in an unknown state. */
  async begin(runner: QueryRunner): Promise<void> {
    if (this.dialect === 'mysql') await this.setSessionLimits(runner);
    await runner.startTransaction();
    if (this.dialect === 'postgres') {
      await runner.query(
        `SET LOCAL statement_timeout = ${this.timeoutMs}; SET LOCAL idle_in_transaction_session_timeout = ${this.timeoutMs}`,
      );
    }
  }

  /**
   * Commits; throws when COMMIT fails (roll back then). Answers whether the connection can go
   * back to the pool (its session restored, no transaction left open).
   */
  async commit(runner: QueryRunner): Promise<boolean> {
    await runner.commitTransaction();
    return this.restored(runner);
  }

  /** Rolls back, never throwing; answers whether the connection can go back to the pool. */
  async rollback(runner: QueryRunner): Promise<boolean> {
    try {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
    } catch {
      return false;
    }
    return this.restored(runner);
  }

  private async restored(runner: QueryRunner): Promise<boolean> {
    switch (this.dialect) {
      case 'sqlite':
        return !runner.isTransactionActive && !sqliteInTransaction(runner);
      case 'mysql':
        try {
          await runner.query(
            flavours.get(runnerDataSource(runner)) === 'mysql'
              ? 'SET SESSION wait_timeout = @mcp_fsm_idle, SESSION max_execution_time = @mcp_fsm_statement'
              : 'SET SESSION idle_transaction_timeout = @mcp_fsm_idle, SESSION max_statement_time = @mcp_fsm_statement',
          );
          return true;
        } catch {
          return false;
        }
      case 'postgres':
        return true;
    }
  }

  /** Saves the session's limits in user variables and sets the store's, in one statement. */
  private async setSessionLimits(runner: QueryRunner): Promise<void> {
    const dataSource = runnerDataSource(runner);
    const seconds = Math.ceil(this.timeoutMs / 1000);
    const flavour = flavours.get(dataSource) ?? (dataSource.options.type === 'mariadb' ? 'mariadb' : undefined);
    if (flavour !== 'mysql') {
      try {
        await runner.query(
          `SET @mcp_fsm_idle = @@SESSION.idle_transaction_timeout, @mcp_fsm_statement = @@SESSION.max_statement_time, SESSION idle_transaction_timeout = ${seconds}, SESSION max_statement_time = ${seconds}`,
        );
        flavours.set(dataSource, 'mariadb');
        return;
      } catch (error) {
        if (flavour === 'mariadb' || (error as { driverError?: { errno?: number } }).driverError?.errno !== UNKNOWN_SYSTEM_VARIABLE_ERRNO) {
          throw error;
        }
        flavours.set(dataSource, 'mysql');
      }
    }
    await runner.query(
      `SET @mcp_fsm_idle = @@SESSION.wait_timeout, @mcp_fsm_statement = @@SESSION.max_execution_time, SESSION wait_timeout = ${seconds}, SESSION max_execution_time = ${this.timeoutMs}`,
    );
  }
}
