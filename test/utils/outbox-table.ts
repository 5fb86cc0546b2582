import type { DataSource } from 'typeorm';
import { createOutboxMigration } from '../../lib/relays/typeorm/fsm-outbox.migration.js';
import { createOutboxReplyMigration } from '../../lib/relays/typeorm/outbox-reply.migration.js';

/** Runs the shipped outbox migrations `up` (or `down`, in reverse) for the outbox table `tableName` of one test run. */
export async function migrateOutbox(dataSource: DataSource, tableName: string, direction: 'up' | 'down'): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    const steps = [new (createOutboxMigration({ tableName }))(), new (createOutboxReplyMigration({ tableName }))()];
    for (const step of direction === 'up' ? steps : steps.reverse()) await step[direction](runner);
  } finally {
    await runner.release();
  }
}
