import { DataSource, type DataSourceOptions } from 'typeorm';

/** A DataSource on `options` whose `migrations` ran, recorded in their own `migrationsTableName`. */
export async function openMigrated(
  options: DataSourceOptions,
  migrations: NonNullable<DataSourceOptions['migrations']>,
  migrationsTableName: string,
): Promise<DataSource> {
  const dataSource = await new DataSource({ ...options, migrations, migrationsTableName } as DataSourceOptions).initialize();
  await dataSource.runMigrations();
  return dataSource;
}

/** Undoes every migration `dataSource` ran (last first), drops its migrations table and closes it. */
export async function dropMigrated(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    for (let undo = 0; undo < dataSource.migrations.length; undo++) await dataSource.undoLastMigration();
    await runner.dropTable(dataSource.options.migrationsTableName!, true);
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}
