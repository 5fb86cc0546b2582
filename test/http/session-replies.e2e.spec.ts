import type { INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type CallToolResult,
  type ElicitResult,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { InMemoryFsmStateStore } from '../../lib/index.js';
import type { TransitionRelay } from '../../lib/extend.js';
import { RedisTransitionRelay } from '../../lib/redis.js';
import {
  CreateMcpSessionHandles1764806400000,
  CreateMcpSessions1764633600000,
  OutboxTransitionRelay,
  PostgresTransitionRelay,
  TypeOrmMcpSessionStore,
} from '../../lib/typeorm.js';
import { SessionReplyForwarder } from '../../lib/transports/session-reply.forwarder.js';
import { replyForeignSession, replyNobodyWaits, replyWithoutRelay } from '../../lib/transports/session-reply.messages.js';
import { ConformanceInputRequired } from '../conformance/conformance.input-required.js';
import { ConfirmLog, confirmModule } from '../fixtures/confirm.app.js';
import { uniqueSuffix } from '../utils/databases.js';
import { eventually, mcpUrl, postMcp, textOf } from '../utils/http-client.js';
import { migrateOutbox } from '../utils/outbox-table.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../utils/round-robin-proxy.js';
import { listenApp } from '../utils/test-app.js';

/** `Bearer <name>` is the principal `<name>`. */
function authenticate(request: IncomingMessage): AuthInfo | undefined {
  const token = request.headers.authorization?.replace(/^Bearer /, '');
  return token ? { token, clientId: token, scopes: [] } : undefined;
}

/** A question the client's user has not answered yet: its request id on the wire, and how to answer it. */
interface HeldQuestion {
  requestId: RequestId;
  answer: (result: ElicitResult) => void;
}

/** An SDK v1 client of principal `name` whose user holds each question until the test answers it. */
interface Person {
  client: Client;
  sessionId: string;
  headers: Record<string, string>;
  /** Resolves with the next question once it is asked. */
  nextQuestion: () => Promise<HeldQuestion>;
  call: (name: string) => Promise<CallToolResult>;
}

const codeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;
const redisUrl = process.env.TEST_REDIS_URL;
const postgresUrl = process.env.TEST_POSTGRES_URL;
const mysqlUrl = process.env.TEST_MYSQL_URL;

describe('answers to server-to-client requests on two processes behind a round-robin proxy', () => {
  let apps: INestApplication[];
  let urls: URL[];
  /** What both apps log (Nest's logger is one per process). */
  let logs: RecordingLogger;
  let proxy: RoundRobinProxy;
  let clients: Client[];
  let stateStore: InMemoryFsmStateStore;
  let sessions: DataSource | undefined;

  const forwarder = (index: number) => apps[index].get(SessionReplyForwarder);
  const runs = () => apps.reduce((total, app) => total + app.get(ConfirmLog).count('payout.discharge'), 0);

  const start = async (relay: () => TransitionRelay | undefined, timeoutMs = 60_000, drainMs?: number) => {
    // A session store in a file, as processes share one: it outlives a process that stops.
    sessions = new DataSource({
      type: 'better-sqlite3',
      database: join(mkdtempSync(join(tmpdir(), 'mcp-replies-')), 'sessions.sqlite'),
      migrations: [CreateMcpSessions1764633600000, CreateMcpSessionHandles1764806400000],
    });
    await sessions.initialize();
    await sessions.runMigrations();
    const sessionStore = new TypeOrmMcpSessionStore(sessions);
    stateStore = new InMemoryFsmStateStore();
    for (let i = 0; i < 2; i++) {
      const options = {
        store: stateStore,
        transitionRelay: relay(),
        inputRequests: { timeoutMs },
        auth: { fromRequest: authenticate },
        transports: { http: { drainMs, sessions: { store: sessionStore } } },
      };
      // The confirmation fixture, and the handlers that ask in input-required rounds.
      const module = confirmModule(options);
      const imports = [{ ...module, providers: [...(module.providers ?? []), ConformanceInputRequired] }];
      apps.push(await listenApp(imports, { configure: (app) => app.useLogger(logs) }));
    }
    urls = await Promise.all(apps.map((app) => mcpUrl(app)));
    proxy = await startRoundRobinProxy(urls);
  };

  const connect = async (name: string): Promise<Person> => {
    const headers = { authorization: `Bearer ${name}` };
    const client = new Client({ name: `replies-${name}`, version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const waiting: ((question: HeldQuestion) => void)[] = [];
    const asked: HeldQuestion[] = [];
    client.setRequestHandler(
      ElicitRequestSchema,
      (_request, extra) =>
        new Promise<ElicitResult>((answer) => {
          const question = { requestId: extra.requestId, answer };
          const taker = waiting.shift();
          if (taker) taker(question);
          else asked.push(question);
        }),
    );
    const transport = new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers } });
    await client.connect(transport);
    clients.push(client);
    return {
      client,
      sessionId: transport.sessionId!,
      headers,
      nextQuestion: () => {
        const already = asked.shift();
        return already ? Promise.resolve(already) : new Promise<HeldQuestion>((resolve) => waiting.push(resolve));
      },
      call: async (tool) => (await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 120_000 })) as CallToolResult,
    };
  };

  /** Which process asked the question in flight (the one whose request waits), checked to be exactly one. */
  const asker = () => {
    const waiting = apps.map((_, index) => forwarder(index).ids.size);
    expect(waiting.filter((size) => size > 0)).toEqual([1]);
    return waiting.findIndex((size) => size === 1);
  };

  /** Sends every request from now on to the process that did not ask. */
  const routeToTheOther = (askerIndex: number) => proxy.setTargets([urls[1 - askerIndex]]);

  beforeEach(() => {
    apps = [];
    logs = new RecordingLogger();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await proxy?.close();
    await Promise.all(apps.map((app) => app.close()));
    stateStore?.onApplicationShutdown();
    await sessions?.destroy();
    sessions = undefined;
  });

  const kinds: [string, 'redis' | 'postgres' | 'outbox'][] = [];
  if (redisUrl) kinds.push(['Redis', 'redis']);
  if (postgresUrl) kinds.push(['PostgreSQL', 'postgres']);
  if (mysqlUrl) kinds.push(['MariaDB outbox', 'outbox']);
  if (kinds.length < 3) console.warn('answers relayed: the relays whose TEST_*_URL is not set are skipped');
  const describeRelays = kinds.length ? describe.each(kinds) : describe.skip.each<[string, string]>([['no', 'none']]);

  describeRelays('through the %s relay', (_name, kind) => {
    const suffix = uniqueSuffix();
    const outbox = `replies_outbox_${suffix}`;
    let database: DataSource | undefined;
    /** The relay of each app, carrying replies of at most `maxReplyBytes` where it takes the option. */
    const relay = (maxReplyBytes?: number) => (): TransitionRelay => {
      switch (kind) {
        case 'redis':
          return new RedisTransitionRelay(redisUrl!, { channel: `nestjs-mcp-fsm:replies-test:${suffix}`, maxReplyBytes });
        case 'postgres':
          return new PostgresTransitionRelay(database!, { channel: `replies_test_${suffix}` });
        default:
          return new OutboxTransitionRelay(database!, { tableName: outbox, pollIntervalMs: 50, maxReplyBytes });
      }
    };
    /** The largest reply of {@link relay}(400): NOTIFY's payload limit sets PostgreSQL's. */
    const smallLimit = kind === 'postgres' ? 7_900 : 400;
    beforeAll(async () => {
      if (kind === 'redis') return;
      database = await new DataSource(
        kind === 'postgres' ? { type: 'postgres', url: postgresUrl } : { type: 'mysql', url: mysqlUrl },
      ).initialize();
      if (kind === 'outbox') await migrateOutbox(database, outbox, 'up');
    });

    afterAll(async () => {
      if (kind === 'outbox') await migrateOutbox(database!, outbox, 'down');
      await database?.destroy();
    });

    const answerTo = (requestId: RequestId, content: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id: requestId,
      result: { action: 'accept', content },
    });
    const sessionHeaders = (person: Person) => ({
      ...person.headers,
      'mcp-session-id': person.sessionId,
      'mcp-protocol-version': '2025-11-25',
    });

    it('refuses with 413 an answer larger than the relay carries; the question still waits for one that fits', async () => {
      await start(relay(400));
      const alice = await connect('alice');
      const called = alice.call('payout.discharge');
      const question = await alice.nextQuestion();
      const askedBy = asker();
      const tooLarge = await postMcp(
        urls[1 - askedBy],
        answerTo(question.requestId, { note: 'x'.repeat(smallLimit) }),
        sessionHeaders(alice),
      );
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: expect.stringMatching(
            new RegExp(`^The answer is \\d+ bytes; the transition relay carries answers of at most ${smallLimit} bytes`),
          ),
        },
      });
      expect(forwarder(askedBy).ids.size).toBe(1);
      routeToTheOther(askedBy);
      question.answer({ action: 'accept', content: {} });
      expect((await called).isError).toBeFalsy();
      expect(runs()).toBe(1);
    });

    it('drops the answer when the process that asked is gone: the call went with it, nothing runs elsewhere', async () => {
      await start(relay(), 60_000, 200);
      const alice = await connect('alice');
      const called = alice.call('payout.discharge').catch((error: unknown) => error);
      const question = await alice.nextQuestion();
      const askedBy = asker();
      routeToTheOther(askedBy);
      await apps[askedBy].close();
      await called;
      const survivor = 1 - askedBy;
      const answered = await postMcp(urls[survivor], answerTo(question.requestId), sessionHeaders(alice));
      expect(answered.status).toBe(202);
      expect(runs()).toBe(0);
      expect(forwarder(survivor).ids.size).toBe(0);
      expect((await stateStore.load(`payout:session:${alice.sessionId}`))?.state).not.toBe('discharged');
      apps.splice(askedBy, 1);
      expect((await alice.client.listTools()).tools.map((tool) => tool.name)).toContain('payout.discharge');
    });

    it.each([
      ['accept', { action: 'accept', content: {} }],
      ['decline', { action: 'decline' }],
    ] as const)('carries the answer "%s" that reaches the other process to the one that asked', async (action, result) => {
      await start(relay());
      const alice = await connect('alice');
      const called = alice.call('payout.discharge');
      const question = await alice.nextQuestion();
      const askedBy = asker();
      routeToTheOther(askedBy);
      question.answer(result);
      const outcome = await called;
      if (action === 'accept') {
        expect(outcome.isError).toBeFalsy();
        expect(outcome.structuredContent).toEqual({ discharged: true });
        expect(runs()).toBe(1);
        expect(await stateStore.load(`payout:session:${alice.sessionId}`)).toMatchObject({ state: 'discharged' });
      } else {
        expect(codeOf(outcome)).toBe('DECLINED');
        expect(textOf(outcome)).toMatch(/did not run: the person at the client declined\./);
        expect(runs()).toBe(0);
        expect((await alice.client.listTools()).tools.map((tool) => tool.name)).toContain('payout.discharge');
      }
      expect([forwarder(0).ids.size, forwarder(1).ids.size]).toEqual([0, 0]);
    });

    it('relays the answers of input-required rounds (elicitation, sampling, roots; two rounds) wherever each lands', async () => {
      await start(relay());
      const names: Record<string, ElicitResult> = {
        'What is your name?': { action: 'accept', content: { name: 'Alice' } },
        'Step 1: What is your name?': { action: 'accept', content: { name: 'Alice' } },
        'Step 2: What is your favorite color?': { action: 'accept', content: { color: 'blue' } },
      };
      const client = new Client({ name: 'rounds', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
      client.setRequestHandler(ElicitRequestSchema, (request) => names[request.params.message] ?? { action: 'decline' });
      client.setRequestHandler(CreateMessageRequestSchema, () => ({
        role: 'assistant',
        content: { type: 'text', text: 'Paris.' },
        model: 'test',
        stopReason: 'endTurn',
      }));
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
      await client.connect(new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: 'Bearer alice' } } }));
      clients.push(client);
      const from = proxy.log.length;
      const call = async (name: string) => textOf((await client.callTool({ name, arguments: {} })) as CallToolResult);
      expect(await call('test_input_required_result_multi_round')).toBe("Alice's favorite color is blue.");
      expect(await call('test_input_required_result_multiple_inputs')).toBe('Hello, Alice! 1 root(s).');
      // Two calls and five answers, in turn to either process.
      expect(new Set(proxy.log.slice(from).filter((line) => line.startsWith('POST')))).toEqual(new Set(['POST 0', 'POST 1']));
      expect([forwarder(0).ids.size, forwarder(1).ids.size]).toEqual([0, 0]);
    });

    it('drops an answer from another principal, naming neither its content nor taking it; the real answer decides', async () => {
      await start(relay());
      const alice = await connect('alice');
      const mallory = await connect('mallory');
      const called = alice.call('payout.discharge');
      const question = await alice.nextQuestion();
      const askedBy = asker();
      const forged = { jsonrpc: '2.0', id: question.requestId, result: { action: 'accept', content: { note: 'FORGED-CONTENT' } } };

      const ownSession = await postMcp(urls[1 - askedBy], forged, {
        ...mallory.headers,
        'mcp-session-id': mallory.sessionId,
        'mcp-protocol-version': '2025-11-25',
      });
      expect(ownSession.status).toBe(202);
      await eventually(() => logs.matching('warn', /^Dropped an answer/).length === 1, 5000);
      expect(logs.matching('warn', /^Dropped an answer/)).toEqual([replyForeignSession(String(question.requestId), mallory.sessionId)]);
      // What the SDK refuses before any message reaches a server, it refuses here too.
      const unknownVersion = await postMcp(urls[1 - askedBy], forged, { ...sessionHeaders(mallory), 'mcp-protocol-version': '1999-01-01' });
      expect(unknownVersion.status).toBe(400);
      const hijack = await postMcp(urls[1 - askedBy], forged, {
        ...mallory.headers,
        'mcp-session-id': alice.sessionId,
        'mcp-protocol-version': '2025-11-25',
      });
      // Alice's session answers mallory as an unknown one would, and takes nothing.
      expect(hijack.status).toBe(404);
      expect(forwarder(askedBy).ids.size).toBe(1);

      routeToTheOther(askedBy);
      question.answer({ action: 'decline' });
      expect(codeOf(await called)).toBe('DECLINED');
      expect(runs()).toBe(0);
      expect(logs.lines.some((line) => line.message.includes('FORGED-CONTENT'))).toBe(false);
    });

    it('drops answers nobody waits for: an unknown request, a process that is gone, an answer after the wait ran out', async () => {
      await start(relay(), 1500);
      const alice = await connect('alice');
      const headers = { ...alice.headers, 'mcp-session-id': alice.sessionId, 'mcp-protocol-version': '2025-11-25' };
      const tags = [forwarder(0).ids.tag, forwarder(1).ids.tag, 'f'.repeat(16)];
      for (const tag of tags) {
        for (const url of urls) {
          const stray = await postMcp(url, { jsonrpc: '2.0', id: `${tag}-4242`, result: { action: 'accept', content: {} } }, headers);
          expect(stray.status).toBe(202);
        }
      }
      // Each process is told of the strays of its own tag, on whichever process they arrived; nobody of the gone one's.
      const toldOf = (tag: string) => logs.matching('debug', new RegExp(`^Dropped an answer to request ${tag}-4242 `)).length;
      await eventually(() => toldOf(tags[0]) === 2 && toldOf(tags[1]) === 2, 5000);
      expect(toldOf(tags[2])).toBe(0);
      const called = alice.call('payout.discharge');
      const question = await alice.nextQuestion();
      const askedBy = asker();
      routeToTheOther(askedBy);
      const outcome = await called;
      expect(codeOf(outcome)).toBe('DECLINED');
      expect(textOf(outcome)).toMatch(/did not answer within 1\.5 s/);
      expect(forwarder(askedBy).ids.size).toBe(0);
      // The SDK client drops an answer to a request the server cancelled: this one was sent anyway.
      const late = await postMcp(
        urls[1 - askedBy],
        { jsonrpc: '2.0', id: question.requestId, result: { action: 'accept', content: {} } },
        headers,
      );
      expect(late.status).toBe(202);
      const dropped = replyNobodyWaits(String(question.requestId), alice.sessionId);
      await eventually(() => logs.matching('debug', /nothing waits/).includes(dropped), 5000);
      expect(runs()).toBe(0);
      expect([forwarder(0).ids.size, forwarder(1).ids.size]).toEqual([0, 0]);
      expect((await alice.client.listTools()).tools.map((tool) => tool.name)).toContain('payout.discharge');
      expect(logs.matching('warn', /^Dropped an answer/)).toEqual([]);
    });
  });

  it('without a relay, drops an answer that reaches the other process and says so; the call is DECLINED when the wait runs out', async () => {
    await start(() => undefined, 1500);
    const alice = await connect('alice');
    const called = alice.call('payout.discharge');
    const question = await alice.nextQuestion();
    const askedBy = asker();
    routeToTheOther(askedBy);
    question.answer({ action: 'accept', content: {} });
    await eventually(() => logs.matching('warn', /reached this process and is dropped/).length === 1, 5000);
    expect(logs.matching('warn', /reached this process/)).toEqual([replyWithoutRelay(alice.sessionId, false)]);
    expect(codeOf(await called)).toBe('DECLINED');
    expect(runs()).toBe(0);
  });
});
