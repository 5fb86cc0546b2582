import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions, type EntitySchema } from 'typeorm';
import type { TypeOrmFsmStateStoreOptions } from '../../lib/typeorm.js';
import { ledgerEntity, ledgerModule, type LedgerRow } from '../fixtures/ledger.app.js';
import { connectClient, mcpUrl, type TestClient } from './http-client.js';
import { createStoreTables, dropStoreTables } from './store-tables.js';
import { listenApp } from './test-app.js';

/** A started ledger app, its DataSource and one connected client. */
export interface LedgerApp {
  dataSource: DataSource;
  entity: EntitySchema<LedgerRow>;
  app: INestApplication;
  agent: TestClient;
  /**
   * Closes the client and the app, drops the ledger and store tables (unless `drop` is false)
   * and destroys the DataSource; what the test already closed is passed over.
   */
  close: (options?: { drop?: boolean }) => Promise<void>;
}

/**
 * Opens a DataSource on `options` with a ledger table named `ledgerTable` (synchronized), creates
 * the store tables with the shipped migrations, and starts the ledger app on them with
 * `storeOptions`, one client connected.
 */
export async function startLedgerApp(
  options: DataSourceOptions,
  ledgerTable: string,
  given: TypeOrmFsmStateStoreOptions,
): Promise<LedgerApp> {
  // The payment machine has a deadline: its timer table is made (and dropped) with the others.
  const storeOptions = { timerTableName: `${given.tableName ?? 'mcp_fsm_state'}_timer`, ...given };
  const entity = ledgerEntity(ledgerTable);
  const dataSource = new DataSource({ ...options, entities: [entity] } as DataSourceOptions);
  await dataSource.initialize();
  await dataSource.synchronize();
  await createStoreTables(dataSource, storeOptions);
  const app = await listenApp([ledgerModule(dataSource, entity, storeOptions)]);
  const agent = await connectClient(await mcpUrl(app));
  return {
    dataSource,
    entity,
    app,
    agent,
    close: async ({ drop = true } = {}) => {
      await agent.close();
      await app.close();
      if (!dataSource.isInitialized) return;
      if (drop) {
        await dropStoreTables(dataSource, storeOptions);
        await dataSource.query(`DROP TABLE ${ledgerTable}`);
      }
      await dataSource.destroy();
    },
  };
}
