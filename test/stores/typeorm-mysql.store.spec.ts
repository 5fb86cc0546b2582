import { TypeOrmTestDatabase, describeTypeOrmStore } from './typeorm-store.fixture.js';

const url = process.env.TEST_MYSQL_URL;
if (!url) {
  // Written to stderr: Jest drops console output of a suite whose tests are all skipped.
  process.stderr.write(
    `\nSKIPPED: TypeOrmFsmStateStore on MySQL/MariaDB — TEST_MYSQL_URL is not set (for example mysql://root@127.0.0.1:3306/test).\n\n`,
  );
}

(url ? describe : describe.skip)('TypeOrmFsmStateStore on MySQL/MariaDB', () => {
  const database = new TypeOrmTestDatabase({ type: url?.startsWith('mariadb:') ? 'mariadb' : 'mysql', url });

  describeTypeOrmStore('MySQL/MariaDB', database, {
    claimWithContext: 2,
    claimAnyState: 2,
    commitWithHistory: 6,
    transactionBegin: 2,
    transactionCommitWithHistory: 4,
  });
});
