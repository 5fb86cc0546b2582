import type { DataSource, QueryRunner } from 'typeorm';

/**
 * The DataSource a QueryRunner runs on, on TypeORM 0.3 and 1.x alike: 1.x names it
 * `dataSource` (its `connection` is deprecated), 0.3 has only `connection`.
 */
export function runnerDataSource(runner: QueryRunner): DataSource {
  const { dataSource, connection } = runner as QueryRunner & { dataSource?: DataSource; connection?: DataSource };
  return (dataSource ?? connection)!;
}
