import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { RelayedTransition } from '../../lib/relays/transition-relay.interface.js';
import { createOutboxMigration } from '../../lib/relays/typeorm/fsm-outbox.migration.js';
import { createOutboxReplyMigration } from '../../lib/relays/typeorm/outbox-reply.migration.js';
import { createMcpSessionHandleMigration, createMcpSessionMigration } from '../../lib/stores/typeorm/mcp-session.migration.js';
import { OutboxTransitionRelay } from '../../lib/relays/typeorm/outbox-transition.relay.js';
import { TypeOrmMcpSessionStore } from '../../lib/stores/typeorm/typeorm-mcp-session.store.js';
import { describeNetworkedTargets, uniqueSuffix } from '../utils/databases.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';
import { sessionRecord, streamMessage } from '../../lib/testing.js';

const TIMEOUT_MS = 2000;
/** Scheduling slack on a loaded 2-core CI machine, on top of the bound the store promises. */
const SLACK_MS = 1500;
const POLL_INTERVAL_MS = 50;

/** How `work` settled, and how long after `since`. */
async function settled(work: Promise<unknown>, since: number): Promise<{ error?: Error; afterMs: number }> {
  try {
    await work;
    return { afterMs: Date.now() - since };
  } catch (error) {
    return { error: error as Error, afterMs: Date.now() - since };
  }
}

describeNetworkedTargets('session store and relay partition')(
  'TypeOrmMcpSessionStore and OutboxTransitionRelay on $name through a partitioned network',
  ({ url, options }) => {
    const prefix = `part_sess_${uniqueSuffix()}_${randomBytes(3).toString('hex')}`;
    const tables = { tableName: prefix, eventTableName: `${prefix}_event`, handleTableName: `${prefix}_handle` };
    const outbox = { tableName: `${prefix}_outbox` };
    const migrations = [
      new (createMcpSessionMigration(tables))(),
      new (createMcpSessionHandleMigration(tables))(),
      new (createOutboxMigration(outbox))(),
      new (createOutboxReplyMigration(outbox))(),
    ];
    const logs = new RecordingLogger();
    let proxy: TcpProxy;
    let cut: DataSource;
    let direct: DataSource;
    let store: TypeOrmMcpSessionStore;
    let peer: TypeOrmMcpSessionStore;
    let partitioned = false;
    const partition = () => {
      proxy.partition();
      partitioned = true;
    };
    // Once only: healing twice pipes the proxied sockets twice, and the server then answers every query twice.
    const heal = () => {
      if (partitioned) proxy.heal();
      partitioned = false;
    };

    beforeAll(async () => {
      Logger.overrideLogger(logs);
      proxy = await startProxy(url!);
      direct = new DataSource(options());
      cut = new DataSource(options(proxy.rewrite(url!)));
      await Promise.all([direct.initialize(), cut.initialize()]);
      const runner = direct.createQueryRunner();
      try {
        for (const migration of migrations) await migration.up(runner);
      } finally {
        await runner.release();
      }
      store = new TypeOrmMcpSessionStore(cut, { ...tables, timeoutMs: TIMEOUT_MS });
      peer = new TypeOrmMcpSessionStore(direct, tables);
    });

    afterEach(heal);

    afterAll(async () => {
      const runner = direct.createQueryRunner();
      try {
        for (const migration of [...migrations].reverse()) await migration.down(runner);
      } finally {
        await runner.release();
      }
      await Promise.all([direct.destroy(), cut.destroy()]);
      await proxy.stop();
    });

    it('fails the operations cut off by the partition within timeoutMs, and does not reuse their connections', async () => {
      const record = sessionRecord('main', 1_000);
      await peer.create(record);
      // Pooled connections that the partition catches idle, as well as new ones it holds at connect.
      expect(await store.find(record.id)).toEqual(record);
      partition();
      const startedAt = Date.now();
      const [find, touch, append] = await Promise.all([
        settled(store.find(record.id), startedAt),
        settled(store.touch(record.id, 2_000), startedAt),
        settled(store.appendEvent(record.id, streamMessage(1)), startedAt),
      ]);
      expect([find.error?.message, touch.error?.message, append.error?.message]).toEqual(
        ['find', 'touch', 'appendEvent'].map(
          (operation) =>
            `TypeOrmMcpSessionStore: ${operation} did not finish within timeoutMs (${TIMEOUT_MS} ms); its connection is not reused.`,
        ),
      );
      for (const { afterMs } of [find, touch, append]) expect(afterMs).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);

      heal();
      // Every pooled connection answers its own query again: none was left waiting for the answer to a timed-out one.
      const found = await Promise.all(Array.from({ length: 12 }, () => store.find(record.id)));
      expect(found.every((one) => one?.lastSeenAt === 1_000)).toBe(true);
      expect(await store.touch(record.id, 3_000)).toBe(true);
      expect((await peer.find(record.id))?.lastSeenAt).toBe(3_000);
    });

    it("bounds the relay's poll and insert in flight when the partition starts, so stop returns within timeoutMs", async () => {
      const relay = new OutboxTransitionRelay(cut, { ...outbox, pollIntervalMs: POLL_INTERVAL_MS, timeoutMs: TIMEOUT_MS });
      await relay.start(() => undefined);
      partition();
      const startedAt = Date.now();
      relay.publish({ machine: 'payment', storeKey: 'payment:partitioned', state: 'captured' });
      // Let the next poll start, and hang, behind the partition.
      await new Promise((resolve) => setTimeout(resolve, 4 * POLL_INTERVAL_MS));
      const stopped = await settled(relay.stop(), startedAt);
      expect(stopped).toEqual({ afterMs: expect.any(Number) });
      expect(stopped.afterMs).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);
      const timedOut = (operation: string) =>
        `OutboxTransitionRelay: ${operation} did not finish within timeoutMs (${TIMEOUT_MS} ms); its connection is not reused.`;
      expect(logs.matching('warn', /Could not relay a transition/)).toEqual([
        `Could not relay a transition to the other instances: ${timedOut('publish')}`,
      ]);
      expect(logs.matching('warn', /cannot poll/)).toEqual([expect.stringContaining(timedOut('poll'))]);

      heal();
      const again = new OutboxTransitionRelay(cut, { ...outbox, pollIntervalMs: POLL_INTERVAL_MS, timeoutMs: TIMEOUT_MS });
      const received: RelayedTransition[] = [];
      await again.start((transition) => received.push(transition));
      const sender = new OutboxTransitionRelay(direct, outbox);
      sender.publish({ machine: 'payment', storeKey: 'payment:healed', state: 'captured' });
      await sender.stop();
      const healed = { machine: 'payment', storeKey: 'payment:healed', state: 'captured' };
      const sentAt = Date.now();
      while (!received.some((one) => one.storeKey === healed.storeKey) && Date.now() - sentAt < TIMEOUT_MS) {
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      }
      await again.stop();
      // The insert abandoned at the deadline may still reach the server once the network is back (its bytes were sent).
      expect(received).toContainEqual(healed);
    });
  },
);
