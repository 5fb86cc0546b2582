import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, type DataSourceOptions, type EntityManager } from 'typeorm';
import { CountingLogger } from '../utils/counting-logger.js';
import {
  TypeOrmFsmStateStore,
  createWorkflowApprovalMigration,
  createWorkflowAttemptDetailsMigration,
  createWorkflowAttemptMigration,
  createExactTextMigration,
  createWorkflowContextMigration,
  createWorkflowTeamMigration,
  createWorkflowListIndexMigration,
  createWorkflowReceiptMigration,
  createWorkflowStateMigration,
  createWorkflowWaitingIndexMigration,
} from '../../lib/typeorm.js';
import {
  describeFsmAttemptLogContract,
  describeFsmReceiptLogContract,
  describeFsmStateReaderContract,
  describeFsmStateStoreContract,
  type FsmStoreBusinessTable,
  type FsmStoreFactory,
} from '../../lib/testing.js';

/**
 * Round trips one TypeORM dialect is expected to take (see `TypeOrmFsmStateStore`). An exact
 * claim of a row without context is 1 on every dialect (asserted for all, not configurable).
 */
export interface ExpectedRoundTrips {
  /** An exact claim of a row that has a context. */
  claimWithContext: number;
  /** A claim without `allowedStates` (any state). */
  claimAnyState: number;
  commitWithHistory: number;
  /** BEGIN, with the server-side time limits of the transaction. */
  transactionBegin: number;
  transactionCommitWithHistory: number;
}

/**
 * A DataSource on tables unique to this run, created by the shipped migrations (run through
 * TypeORM's migration runner, no `synchronize`) and dropped again after the suite.
 */
export class TypeOrmTestDatabase {
  readonly logger = new CountingLogger();
  readonly tables: { tableName: string; historyTableName: string; attemptTableName: string; receiptTableName: string };
  private readonly ledger: string;
  private readonly migrationsTable: string;
  private source?: DataSource;

  constructor(private readonly options: DataSourceOptions) {
    const prefix = `fsm_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    this.tables = {
      tableName: `${prefix}_state`,
      historyTableName: `${prefix}_transition`,
      attemptTableName: `${prefix}_attempt`,
      receiptTableName: `${prefix}_receipt`,
    };
    this.ledger = `${prefix}_ledger`;
    this.migrationsTable = `${prefix}_migrations`;
  }

  get dataSource(): DataSource {
    return this.source!;
  }

  /** Stores on this database. */
  readonly factory: FsmStoreFactory<TypeOrmFsmStateStore> = async ({ history, attempts }) => ({
    store: new TypeOrmFsmStateStore(this.dataSource, { ...this.tables, history, attempts }),
    cleanup: async () => undefined,
  });

  /** The ledger table the transactional cases write to. */
  readonly business: FsmStoreBusinessTable = {
    write: async (manager, id) => {
      await (manager as EntityManager).query(`INSERT INTO ${this.ledger} (id) VALUES (${this.placeholder})`, [id]);
    },
    count: async (id) => {
      const rows = await this.dataSource.query(`SELECT COUNT(*) AS n FROM ${this.ledger} WHERE id = ${this.placeholder}`, [id]);
      return Number(rows[0].n);
    },
  };

  async open(): Promise<void> {
    this.source = new DataSource({
      ...this.options,
      logger: this.logger,
      migrations: [
        createWorkflowStateMigration(this.tables),
        createWorkflowContextMigration(this.tables),
        createWorkflowTeamMigration(this.tables),
        createWorkflowListIndexMigration(this.tables),
        createWorkflowAttemptMigration(this.tables),
        createWorkflowApprovalMigration(this.tables),
        createWorkflowReceiptMigration(this.tables),
        // The receipt table is made with exact text already (and after this migration, by its timestamp).
        createExactTextMigration({ tableNames: Object.values(this.tables).filter((name) => name !== this.tables.receiptTableName) }),
        createWorkflowAttemptDetailsMigration(this.tables),
        createWorkflowWaitingIndexMigration(this.tables),
      ],
      migrationsTableName: this.migrationsTable,
    } as DataSourceOptions);
    await this.source.initialize();
    await this.source.runMigrations();
    await this.source.query(`CREATE TABLE ${this.ledger} (id varchar(64) NOT NULL PRIMARY KEY)`);
  }

  async close(): Promise<void> {
    if (!this.source?.isInitialized) return;
    try {
      await this.source.query(`DROP TABLE ${this.ledger}`);
      for (let undo = 0; undo < this.source.migrations.length; undo++) await this.source.undoLastMigration();
      await this.source.query(`DROP TABLE ${this.migrationsTable}`);
    } finally {
      await this.source.destroy();
    }
  }

  private get placeholder(): string {
    return this.options.type === 'postgres' ? '$1' : '?';
  }
}

/** The contract suite plus round-trip counts, for one TypeORM database. */
export function describeTypeOrmStore(name: string, database: TypeOrmTestDatabase, expected: ExpectedRoundTrips): void {
  beforeAll(() => database.open(), 60_000);
  afterAll(() => database.close(), 60_000);

  describeFsmStateStoreContract(name, database.factory, { factory: database.factory, business: database.business });
  describeFsmStateReaderContract(name, database.factory);
  describeFsmAttemptLogContract(name, database.factory, 50);
  describeFsmReceiptLogContract(name, database.factory, { factory: database.factory, business: database.business });

  describe(`${name}: round trips per operation (counted with a query logger)`, () => {
    const snapshot = (state: string, extra: { owner?: string; context?: Record<string, unknown> } = {}) => ({
      state,
      updatedAt: new Date().toISOString(),
      ...extra,
    });
    const claimOf = (handle: string, allowedStates?: string[], owner?: string) => ({
      key: handle,
      ...(allowedStates ? { allowedStates } : {}),
      ...(owner ? { owner } : {}),
      token: randomUUID(),
      leaseMs: 60_000,
    });
    const record = (handle: string) => ({
      machine: 'invoice',
      key: handle,
      from: 'draft',
      to: 'review',
      event: 'SUBMIT',
      tool: 'invoice.submit',
      principal: null,
      at: new Date().toISOString(),
    });
    const during = (work: () => Promise<unknown>) => database.logger.during(work);

    it('claim, commit, release, loadMany and load (history off)', async () => {
      const { store } = await database.factory({ history: false });
      const handles = [`invoice:${randomUUID()}`, `invoice:${randomUUID()}`, `invoice:${randomUUID()}`];
      for (const handle of handles) await store.create(handle, snapshot('draft'));
      const [h] = handles;
      const first = { key: h, allowedStates: ['draft'], token: randomUUID(), leaseMs: 60_000 };
      expect(await during(() => store.claim(first))).toHaveLength(1);
      expect(await during(() => store.commit(h, first.token, { snapshot: snapshot('review') }))).toHaveLength(1);
      const second = { key: h, allowedStates: ['review'], token: randomUUID(), leaseMs: 60_000 };
      await store.claim(second);
      expect(await during(() => store.release(h, second.token))).toHaveLength(1);
      expect(await during(() => store.loadMany(handles))).toHaveLength(1);
      expect(await during(() => store.load(h))).toHaveLength(1);
      expect(await during(() => store.save(h, snapshot('approved')))).toHaveLength(1);
    });

    it('listInstances and recentHistory: one SELECT each, never of the context column', async () => {
      const { store } = await database.factory({ history: true });
      const machine = `rt${randomUUID().slice(0, 8)}`;
      const h = `${machine}:${randomUUID()}`;
      await store.create(h, snapshot('draft', { context: { total: 3 } }), { ...record(h), from: null, to: 'draft', event: null });
      const listed = await during(() => store.listInstances({ machine, states: ['draft'], limit: 5 }));
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatch(/^SELECT handle, machine, state, owner, team, updated_at FROM .* LIMIT/);
      expect(await during(() => store.recentHistory(h, 5))).toHaveLength(1);
    });

    it('loadStates: one SELECT of the key and state columns only; a handle listed twice or not stored is no error', async () => {
      const { store } = await database.factory({ history: false });
      const handles = [`invoice:${randomUUID()}`, `invoice:${randomUUID()}`];
      await store.create(handles[0], snapshot('draft', { context: { total: 3 } }));
      await store.create(handles[1], snapshot('review', { owner: 'alice' }));
      let states: Map<string, string> | undefined;
      const queries = await during(async () => (states = await store.loadStates([...handles, handles[0], `invoice:${randomUUID()}`])));
      expect(queries).toHaveLength(1);
      expect(queries[0]).toMatch(/^SELECT handle, state FROM /);
      expect(states).toEqual(
        new Map([
          [handles[0], 'draft'],
          [handles[1], 'review'],
        ]),
      );
    });

    it('an exact claim of a row without context is 1, owned or not, wherever its state is listed', async () => {
      const { store } = await database.factory({ history: false });
      const owned = `invoice:${randomUUID()}`;
      const created = snapshot('review.legal', { owner: 'alice' });
      await store.create(owned, created);
      let result: unknown;
      const queries = await during(async () => (result = await store.claim(claimOf(owned, ['draft', 'review', 'review.legal'], 'alice'))));
      expect(queries).toHaveLength(1);
      expect(result).toStrictEqual({ status: 'claimed', snapshot: created });
      const open = `invoice:${randomUUID()}`;
      await store.create(open, snapshot('review'));
      expect(await during(() => store.claim(claimOf(open, ['draft', 'review'], 'bob')))).toHaveLength(1);
    });

    it('an exact claim of a row with a context', async () => {
      const { store } = await database.factory({ history: false });
      const h = `invoice:${randomUUID()}`;
      const created = snapshot('review', { context: { total: 3 } });
      await store.create(h, created);
      let result: unknown;
      const queries = await during(async () => (result = await store.claim(claimOf(h, ['draft', 'review']))));
      expect(queries).toHaveLength(expected.claimWithContext);
      expect(result).toStrictEqual({ status: 'claimed', snapshot: created });
    });

    it('a claim without allowedStates', async () => {
      const { store } = await database.factory({ history: false });
      const h = `invoice:${randomUUID()}`;
      const created = snapshot('review');
      await store.create(h, created);
      let result: unknown;
      const queries = await during(async () => (result = await store.claim(claimOf(h))));
      expect(queries).toHaveLength(expected.claimAnyState);
      expect(result).toStrictEqual({ status: 'claimed', snapshot: created });
    });

    it('a refused claim adds one diagnostic SELECT', async () => {
      const { store } = await database.factory({ history: false });
      const h = `invoice:${randomUUID()}`;
      await store.create(h, snapshot('draft'));
      const refused = await during(() => store.claim({ key: h, allowedStates: ['review'], token: 't', leaseMs: 1 }));
      expect(refused).toHaveLength(2);
    });

    it('commit with a history row', async () => {
      const { store } = await database.factory({ history: true });
      const h = `invoice:${randomUUID()}`;
      await store.create(h, snapshot('draft'));
      const held = { key: h, allowedStates: ['draft'], token: randomUUID(), leaseMs: 60_000 };
      await store.claim(held);
      const queries = await during(() => store.commit(h, held.token, { snapshot: snapshot('review'), record: record(h) }));
      expect(queries).toHaveLength(expected.commitWithHistory);
    });

    it('transactional mode: begin (with its time limits), lock 1, commit = state write + COMMIT', async () => {
      const { store } = await database.factory({ history: true });
      const h = `invoice:${randomUUID()}`;
      await store.create(h, snapshot('draft'));
      let tx!: Awaited<ReturnType<typeof store.beginTransaction>>;
      expect(await during(async () => (tx = await store.beginTransaction()))).toHaveLength(expected.transactionBegin);
      expect(await during(() => tx.lock({ key: h, allowedStates: ['draft'] }))).toHaveLength(1);
      const commit = await during(() => tx.commit(h, { snapshot: snapshot('review'), record: record(h) }));
      expect(commit).toHaveLength(expected.transactionCommitWithHistory);
    });
  });
}
