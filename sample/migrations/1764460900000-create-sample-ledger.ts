import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** Creates the sample's payment ledger (`sample_ledger`) on PostgreSQL, MySQL/MariaDB or SQLite. */
export class CreateSampleLedger1764460900000 implements MigrationInterface {
  name = 'CreateSampleLedger1764460900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.dataSource.options.type === 'better-sqlite3';
    await queryRunner.createTable(
      new Table({
        name: 'sample_ledger',
        columns: [
          {
            name: 'id',
            // SQLite autoincrements only an INTEGER PRIMARY KEY.
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'payment_id', type: 'varchar', length: '64' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'amount', type: 'decimal', precision: 14, scale: 2 },
          { name: 'currency', type: 'varchar', length: '3' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'IDX_sample_ledger_payment_id', columnNames: ['payment_id'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sample_ledger', true);
  }
}
