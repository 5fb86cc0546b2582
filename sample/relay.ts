import type { DataSource } from 'typeorm';
import { RedisTransitionRelay } from '../lib/redis.js';
import type { TransitionRelay } from '../lib/extend.js';
import { OutboxTransitionRelay, PostgresTransitionRelay } from '../lib/typeorm.js';

/**
 * How the sample's processes tell each other's sessions about transitions: through Redis
 * pub/sub when `REDIS_URL` is set; else the relay that fits the database: LISTEN/NOTIFY on
 * PostgreSQL, a polled outbox table on MySQL/MariaDB. The SQLite file of the default setup
 * serves one process, which needs no relay.
 */
export function sampleTransitionRelay(dataSource: DataSource, env: NodeJS.ProcessEnv = process.env): TransitionRelay | undefined {
  if (env.REDIS_URL) {
    return new RedisTransitionRelay(env.REDIS_URL);
  }
  switch (dataSource.options.type) {
    case 'postgres':
      return new PostgresTransitionRelay(dataSource);
    case 'mysql':
    case 'mariadb':
      return new OutboxTransitionRelay(dataSource);
    default:
      return undefined;
  }
}
