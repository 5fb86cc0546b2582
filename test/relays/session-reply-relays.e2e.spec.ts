import { DataSource, type DataSourceOptions } from 'typeorm';
import type { TransitionRelay } from '../../lib/extend.js';
import { RedisTransitionRelay } from '../../lib/redis.js';
import { carriesReplies, type RelayedReply, type SessionReplyRelay } from '../../lib/relays/session-reply-relay.interface.js';
import { replyRelayNotStarted } from '../../lib/relays/session-reply.messages.js';
import { OutboxTransitionRelay, PostgresTransitionRelay } from '../../lib/typeorm.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { createOutboxMigration } from '../../lib/relays/typeorm/fsm-outbox.migration.js';
import { createOutboxReplyMigration } from '../../lib/relays/typeorm/outbox-reply.migration.js';
import { eventually } from '../utils/http-client.js';
import { migrateOutbox } from '../utils/outbox-table.js';
import { paymentTransition, RelayTestBed } from '../utils/relay-test-bed.js';

type ReplyRelay = TransitionRelay & SessionReplyRelay;

const reply = (to: string, principal?: string): RelayedReply => ({
  to,
  sessionId: 'session-1',
  ...(principal ? { principal } : {}),
  message: { jsonrpc: '2.0', id: `${to}-0`, result: { action: 'accept', content: { reference: 'REF-42' } } },
});

/** Two started relays of one kind, each keeping the replies and transitions the other sent it. */
async function pair(bed: RelayTestBed, make: () => ReplyRelay) {
  const ends = [make(), make()].map((relay) => ({ relay, replies: [] as RelayedReply[], transitions: [] as unknown[] }));
  for (const end of ends) {
    end.relay.onReply((relayed) => end.replies.push(relayed));
    await end.relay.start((transition) => end.transitions.push(transition));
    bed.relays.push(end.relay);
  }
  return ends;
}

/** Each end hears the other's reply (not its own), and transitions still travel as transitions. */
async function expectRepliesCarried(bed: RelayTestBed, make: () => ReplyRelay): Promise<void> {
  const [a, b] = await pair(bed, make);
  expect(carriesReplies(a.relay)).toBe(true);
  await a.relay.sendReply(reply('aaaaaaaaaaaaaaaa', 'alice'));
  await eventually(() => b.replies.length === 1, 5000);
  await b.relay.sendReply(reply('bbbbbbbbbbbbbbbb'));
  a.relay.publish(paymentTransition('payment:1'));
  await eventually(() => a.replies.length === 1 && b.transitions.length === 1, 5000);
  expect(b.replies).toEqual([reply('aaaaaaaaaaaaaaaa', 'alice')]);
  expect(a.replies).toEqual([reply('bbbbbbbbbbbbbbbb')]);
  expect(b.transitions).toEqual([paymentTransition('payment:1')]);
  expect(a.transitions).toEqual([]);
}

describe.each(databaseTargets('replies on the outbox relay'))('replies on the outbox relay on $name', (target) => {
  const outbox = `reply_outbox_${uniqueSuffix()}`;
  const options = () => (target.name === 'SQLite' ? { ...target.options(), enableWAL: true } : target.options()) as DataSourceOptions;
  let bed: RelayTestBed;
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource(options()).initialize();
    await migrateOutbox(dataSource, outbox, 'up');
  });

  afterAll(async () => {
    await migrateOutbox(dataSource, outbox, 'down');
    await dataSource.destroy();
  });

  beforeEach(() => {
    bed = new RelayTestBed();
  });

  afterEach(() => bed.close());

  it('carries replies to the other processes in rows of their own, next to transitions', async () => {
    await expectRepliesCarried(bed, () => new OutboxTransitionRelay(dataSource, { tableName: outbox, pollIntervalMs: 20 }));
  });

  it('hands over nothing from a reply row that holds no reply; one that is not JSON is logged', async () => {
    const ends = await pair(bed, () => new OutboxTransitionRelay(dataSource, { tableName: outbox, pollIntervalMs: 20 }));
    const placeholders = target.name === 'PostgreSQL' ? '$1, $2, $3, $4, $5' : '?, ?, ?, ?, ?';
    const quoted = target.name === 'MariaDB' ? `\`${outbox}\`` : `"${outbox}"`;
    const insert = (json: string) =>
      dataSource.query(`INSERT INTO ${quoted} (origin, machine, store_key, reply, created_at) VALUES (${placeholders})`, [
        'elsewhere',
        '',
        '',
        json,
        Date.now(),
      ]);
    await insert('{"to": "aaaaaaaaaaaaaaaa", "sessionId": 7}');
    await insert('not json');
    await insert(JSON.stringify(reply('cccccccccccccccc')));
    // Both read the rows of a third process.
    await eventually(() => ends.every((end) => end.replies.length === 1), 5000);
    for (const end of ends) {
      expect(end.replies).toEqual([reply('cccccccccccccccc')]);
      expect(end.transitions).toEqual([]);
    }
    expect(bed.logs.matching('warn', /^Ignored a transition relay message: /)).toHaveLength(2);
  });

  it('fails to start on an outbox table of 0.2 (no reply column), naming the migration that adds it', async () => {
    const old = `${outbox}_old`;
    const runner = dataSource.createQueryRunner();
    try {
      await new (createOutboxMigration({ tableName: old }))().up(runner);
      await expect(new OutboxTransitionRelay(dataSource, { tableName: old }).start(() => undefined)).rejects.toThrow(
        /Run the migrations CreateMcpFsmOutbox1764720000000 and AddMcpFsmOutboxReply1765584000000 /,
      );
      await new (createOutboxReplyMigration({ tableName: old }))().up(runner);
      const relay = new OutboxTransitionRelay(dataSource, { tableName: old });
      await relay.start(() => undefined);
      await relay.stop();
    } finally {
      await runner.dropTable(old, true);
      await runner.release();
    }
  });

  it('takes maxReplyBytes, 64 KiB by default, and refuses one that is not a positive integer', () => {
    expect(new OutboxTransitionRelay(dataSource, { tableName: outbox }).maxReplyBytes).toBe(65_536);
    expect(new OutboxTransitionRelay(dataSource, { tableName: outbox, maxReplyBytes: 1000 }).maxReplyBytes).toBe(1000);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new OutboxTransitionRelay(dataSource, { tableName: outbox, maxReplyBytes: bad })).toThrow(
        `OutboxTransitionRelay: maxReplyBytes must be a whole number of bytes from 1 to 2147483647; got ${bad}.`,
      );
    }
  });
});

const postgres = databaseTargets('replies on the PostgreSQL relay', { networkedOnly: true }).find((target) => target.name === 'PostgreSQL');
(postgres ? describe : describe.skip)('replies on the PostgreSQL relay', () => {
  let bed: RelayTestBed;
  let dataSource: DataSource;
  const channel = `reply_test_${uniqueSuffix()}`;

  beforeAll(async () => {
    dataSource = await new DataSource(postgres!.options()).initialize();
  });

  afterAll(() => dataSource.destroy());

  beforeEach(() => {
    bed = new RelayTestBed();
  });

  afterEach(() => bed.close());

  it('carries replies on its channel as a message of their own, at most 7,900 bytes (a NOTIFY is shorter than 8000)', async () => {
    await expectRepliesCarried(bed, () => new PostgresTransitionRelay(dataSource, { channel }));
    expect(new PostgresTransitionRelay(dataSource).maxReplyBytes).toBe(7_900);
  });

  it('refuses to send a reply before it listens', async () => {
    await expect(new PostgresTransitionRelay(dataSource, { channel }).sendReply(reply('aaaaaaaaaaaaaaaa'))).rejects.toThrow(
      replyRelayNotStarted('PostgresTransitionRelay'),
    );
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.warn('replies on the Redis relay skipped: TEST_REDIS_URL is not set');
(redisUrl ? describe : describe.skip)('replies on the Redis relay', () => {
  let bed: RelayTestBed;
  const channel = `nestjs-mcp-fsm:reply-test:${uniqueSuffix()}`;

  beforeEach(() => {
    bed = new RelayTestBed();
  });

  afterEach(() => bed.close());

  it('carries replies on its channel as a message of their own, 64 KiB by default', async () => {
    await expectRepliesCarried(bed, () => new RedisTransitionRelay(redisUrl!, { channel }));
    expect(new RedisTransitionRelay(redisUrl!).maxReplyBytes).toBe(65_536);
    expect(() => new RedisTransitionRelay(redisUrl!, { maxReplyBytes: 0 })).toThrow(
      'RedisTransitionRelay: maxReplyBytes must be a whole number of bytes from 1 to 2147483647; got 0.',
    );
  });

  it('refuses to send a reply before it is started', async () => {
    await expect(new RedisTransitionRelay(redisUrl!, { channel }).sendReply(reply('aaaaaaaaaaaaaaaa'))).rejects.toThrow(
      replyRelayNotStarted('RedisTransitionRelay'),
    );
  });
});
