import type { DataSource } from 'typeorm';
import { RedisFsmTransitionRelay } from '../lib/redis.js';
import type { FsmTransitionRelay } from '../lib/extend.js';
import { OutboxFsmTransitionRelay, PostgresFsmTransitionRelay } from '../lib/typeorm.js';

/**
 * How the sample's processes tell each other's sessions about transitions: through Redis
 * pub/sub when `REDIS_URL` is set; else the relay that fits the database: LISTEN/NOTIFY on
 * PostgreSQL, a polled outbox table on MySQL/MariaDB. The SQLite file of the default setup
 * serves one process, which needs no relay.
 */
export function sampleTransitionRelay(dataSource: DataSource, env: NodeJS.ProcessEnv = process.env): FsmTransitionRelay | undefined {
  if (env.REDIS_URL) {
    return new RedisFsmTransitionRelay(env.REDIS_URL);
  }
  switch (dataSource.options.type) {
    case 'postgres':
      return new PostgresFsmTransitionRelay(dataSource);
    case 'mysql':
    case 'mariadb':
      return new OutboxFsmTransitionRelay(dataSource);
    default:
      return undefined;
  }
}
