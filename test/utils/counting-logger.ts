import type { Logger as TypeOrmLogger } from 'typeorm';

/** A TypeORM logger that counts the queries sent to the database (one per round trip). */
export class CountingLogger implements TypeOrmLogger {
  readonly queries: string[] = [];

  logQuery(query: string): void {
    this.queries.push(query);
  }

  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** Queries logged while `work` ran. */
  async during(work: () => Promise<unknown>): Promise<string[]> {
    const start = this.queries.length;
    await work();
    return this.queries.slice(start);
  }
}
