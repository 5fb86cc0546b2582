import { TypeOrmTestDatabase, describeTypeOrmStore } from './typeorm-store.fixture.js';

const url = process.env.TEST_MYSQL_URL;
if (!url) {
  console.warn(
    'SKIPPED: TypeOrmFsmStateStore on MySQL/MariaDB — TEST_MYSQL_URL is not set (for example mysql://root@127.0.0.1:3306/test).',
  );
}

(url ? describe : describe.skip)('TypeOrmFsmStateStore on MySQL/MariaDB', () => {
  const database = new TypeOrmTestDatabase({ type: url?.startsWith('mariadb:') ? 'mariadb' : 'mysql', url });

  describeTypeOrmStore('MySQL/MariaDB', database, { claim: 2, commitWithHistory: 4, transactionCommitWithHistory: 3 });
});
