/// <reference types="jest" />
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpSessionRecord, McpSessionStore } from '../stores/mcp-session-store.interface.js';

/** One session store under test, a second one on the same storage (another process), and how to dispose of them. */
export interface McpSessionStoreFixture {
  store: McpSessionStore;
  /** A store sharing `store`'s sessions through its own connections (the same instance for an in-memory store). */
  peer: McpSessionStore;
  cleanup: () => Promise<void>;
}

/** Makes a store under test. */
export type McpSessionStoreFactory = () => Promise<McpSessionStoreFixture>;

/** A session record last seen at `lastSeenAt`, with nested initialize params. */
export function sessionRecord(serverId: string, lastSeenAt: number, principal?: string): McpSessionRecord {
  return {
    id: randomUUID(),
    serverId,
    initialize: {
      protocolVersion: '2025-06-18',
      capabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: {},
        experimental: { 'acme/trace': { depth: 2, tags: ['a', 'ü'], off: null, nested: { list: [1, { deep: true }] } } },
      },
      clientInfo: { name: 'Klïent 🚀', version: '1.0.0' },
    },
    ...(principal === undefined ? {} : { principal }),
    createdAt: lastSeenAt - 10,
    lastSeenAt,
  };
}

/** A GET-stream message numbered `n`. */
export function streamMessage(n: number): JSONRPCMessage {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { n, text: 'héllo 🚀', list: [n, null] } } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cases every session store passes: run them with `factory` making the store. */
export function describeMcpSessionStoreContract(name: string, factory: McpSessionStoreFactory): void {
  describe(`${name}: McpSessionStore contract`, () => {
    let fixture: McpSessionStoreFixture;
    let store: McpSessionStore;

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('round-trips a record with nested initialize params, with and without a principal', async () => {
      const owned = sessionRecord('main', 1_764_633_600_123, 'alice');
      const anonymous = sessionRecord('main', 1_764_633_600_456);
      await store.create(owned);
      await store.create(anonymous);
      expect(await store.find(owned.id)).toStrictEqual(owned);
      expect(await fixture.peer.find(anonymous.id)).toStrictEqual(anonymous);
      expect(await store.find(randomUUID())).toBeUndefined();
    });

    it('keeps no reference to a record it was given or returned', async () => {
      const record = sessionRecord('main', Date.now());
      const expected = structuredClone(record);
      await store.create(record);
      record.initialize.capabilities.roots!.listChanged = false;
      const found = await store.find(record.id);
      found!.initialize.clientInfo.name = 'changed';
      expect(await store.find(record.id)).toStrictEqual(expected);
    });

    it('touch: true and a new lastSeenAt while the session exists (also at the same instant), false once it ended', async () => {
      const record = sessionRecord('main', 1_000);
      await store.create(record);
      expect(await store.touch(record.id, 2_000)).toBe(true);
      expect(await fixture.peer.touch(record.id, 2_000)).toBe(true);
      expect((await store.find(record.id))?.lastSeenAt).toBe(2_000);
      expect(await store.touch(randomUUID(), 2_000)).toBe(false);
      await fixture.peer.delete(record.id);
      expect(await store.touch(record.id, 3_000)).toBe(false);
    });

    it('delete: ends the session and drops its events; false when it did not exist', async () => {
      const record = sessionRecord('main', Date.now());
      const other = sessionRecord('main', Date.now());
      await store.create(record);
      await store.create(other);
      const first = await store.appendEvent(record.id, streamMessage(1));
      await store.appendEvent(record.id, streamMessage(2));
      const kept = await store.appendEvent(other.id, streamMessage(3));
      expect(await store.delete(record.id)).toBe(true);
      expect(await store.find(record.id)).toBeUndefined();
      expect(await store.eventsAfter(record.id, first)).toBeUndefined();
      expect(await store.delete(record.id)).toBe(false);
      expect(await fixture.peer.delete(randomUUID())).toBe(false);
      expect(await store.find(other.id)).toStrictEqual(other);
      expect(await store.eventsAfter(other.id, kept)).toEqual([]);
    });

    it('expire: ends at most limit sessions of its server last seen before the cutoff, with their events', async () => {
      const server = `server-${randomUUID()}`;
      const idle = [1_000, 1_001, 1_002, 1_003, 1_004].map((at) => sessionRecord(server, at));
      const touched = sessionRecord(server, 1_000);
      const fresh = sessionRecord(server, 5_000);
      const elsewhere = sessionRecord(`server-${randomUUID()}`, 1_000);
      for (const record of [...idle, touched, fresh, elsewhere]) await store.create(record);
      const event = await store.appendEvent(idle[0].id, streamMessage(1));
      const freshEvent = await store.appendEvent(fresh.id, streamMessage(2));
      await store.touch(touched.id, 3_000);

      expect(await store.expire(server, 2_000, 0)).toEqual([]);
      const first = await store.expire(server, 2_000, 3);
      expect(first).toHaveLength(3);
      const second = await store.expire(server, 2_000, 10);
      expect([...first, ...second].sort()).toEqual(idle.map((record) => record.id).sort());
      expect(await store.expire(server, 2_000, 10)).toEqual([]);

      for (const record of idle) expect(await store.find(record.id)).toBeUndefined();
      expect(await store.eventsAfter(idle[0].id, event)).toBeUndefined();
      expect(await store.find(touched.id)).toBeDefined();
      expect(await store.find(fresh.id)).toBeDefined();
      expect(await store.eventsAfter(fresh.id, freshEvent)).toEqual([]);
      expect(await store.find(elsewhere.id)).toStrictEqual(elsewhere);
    });

    it('expire from two processes at once, while sessions open and send: every idle session ends once, returned to one of them', async () => {
      const server = `server-${randomUUID()}`;
      const idle = Array.from({ length: 40 }, (_, i) => sessionRecord(server, 1_000 + i));
      const opening = Array.from({ length: 20 }, (_, i) => sessionRecord(server, 5_000 + i));
      for (const record of idle) await store.create(record);
      const ended: string[] = [];
      const drain = async (expirer: McpSessionStore): Promise<void> => {
        for (let batch = await expirer.expire(server, 2_000, 7); batch.length; batch = await expirer.expire(server, 2_000, 7)) {
          ended.push(...batch);
        }
      };
      const open = async (opener: McpSessionStore, records: McpSessionRecord[]): Promise<void> => {
        for (const record of records) {
          await opener.create(record);
          await opener.appendEvent(record.id, streamMessage(1));
          await opener.touch(record.id, record.lastSeenAt + 1);
        }
      };
      // Settled, not Promise.all: a failed call must not leave the others running into the next case.
      const results = await Promise.allSettled([
        drain(store),
        drain(fixture.peer),
        open(store, opening.slice(0, 10)),
        drain(store),
        drain(fixture.peer),
        open(fixture.peer, opening.slice(10)),
      ]);
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
      expect(new Set(ended).size).toBe(ended.length);
      expect(ended.sort()).toEqual(idle.map((record) => record.id).sort());
      for (const record of opening) expect((await store.find(record.id))?.lastSeenAt).toBe(record.lastSeenAt + 1);
    });

    it('expireUnused: ends at most limit sessions of its server created before the cutoff and never touched since, with their events', async () => {
      const server = `server-${randomUUID()}`;
      const unused = [1_000, 1_001, 1_002, 1_003].map((at) => ({ ...sessionRecord(server, at), createdAt: at }));
      const used = { ...sessionRecord(server, 1_000), createdAt: 1_000 };
      const touchedLater = sessionRecord(server, 1_500);
      const fresh = { ...sessionRecord(server, 5_000), createdAt: 5_000 };
      const elsewhere = { ...sessionRecord(`server-${randomUUID()}`, 1_000), createdAt: 1_000 };
      for (const record of [...unused, used, touchedLater, fresh, elsewhere]) await store.create(record);
      const event = await store.appendEvent(unused[0].id, streamMessage(1));
      await fixture.peer.touch(used.id, 1_200);

      expect(await store.expireUnused(server, 2_000, 0)).toEqual([]);
      const first = await store.expireUnused(server, 2_000, 3);
      expect(first).toHaveLength(3);
      const second = await fixture.peer.expireUnused(server, 2_000, 10);
      expect([...first, ...second].sort()).toEqual(unused.map((record) => record.id).sort());
      expect(await store.expireUnused(server, 2_000, 10)).toEqual([]);

      for (const record of unused) expect(await store.find(record.id)).toBeUndefined();
      expect(await store.eventsAfter(unused[0].id, event)).toBeUndefined();
      for (const record of [used, touchedLater, fresh]) expect(await store.find(record.id)).toBeDefined();
      expect(await store.find(elsewhere.id)).toStrictEqual(elsewhere);
    });

    it('expireUnused from two processes at once, while sessions are first used: every unused session ends once, no used one ends', async () => {
      const server = `server-${randomUUID()}`;
      const records = Array.from({ length: 40 }, (_, i) => ({ ...sessionRecord(server, 1_000 + i), createdAt: 1_000 + i }));
      for (const record of records) await store.create(record);
      const usedNow = records.filter((_, i) => i % 4 === 0);
      const ended: string[] = [];
      const drain = async (expirer: McpSessionStore): Promise<void> => {
        for (let batch = await expirer.expireUnused(server, 2_000, 7); batch.length; batch = await expirer.expireUnused(server, 2_000, 7)) {
          ended.push(...batch);
        }
      };
      const use = async (user: McpSessionStore): Promise<boolean[]> =>
        Promise.all(usedNow.map((record) => user.touch(record.id, record.createdAt + 5)));
      const [, , touched] = await Promise.all([drain(store), drain(fixture.peer), use(fixture.peer)]);
      expect(new Set(ended).size).toBe(ended.length);
      // A session touched before the sweep reached it lives on; the others ended, each returned once.
      const survivors = usedNow.filter((_, i) => touched[i]).map((record) => record.id);
      expect(ended.sort()).toEqual(
        records
          .map((record) => record.id)
          .filter((id) => !survivors.includes(id))
          .sort(),
      );
      for (const id of survivors) expect((await store.find(id))?.lastSeenAt).toBeGreaterThan(0);
    });

    it('appendEvent/eventsAfter: the later events of the session, in order; undefined for an id that is not one of its events', async () => {
      const record = sessionRecord('main', Date.now());
      const other = sessionRecord('main', Date.now());
      await store.create(record);
      await store.create(other);
      const ids = [await store.appendEvent(record.id, streamMessage(1))];
      const foreign = await fixture.peer.appendEvent(other.id, streamMessage(99));
      ids.push(await fixture.peer.appendEvent(record.id, streamMessage(2)));
      ids.push(await store.appendEvent(record.id, streamMessage(3)));

      for (const id of ids) expect(typeof id).toBe('string');
      expect(Number(ids[1])).toBeGreaterThan(Number(ids[0]));
      expect(Number(ids[2])).toBeGreaterThan(Number(ids[1]));
      expect(await store.eventsAfter(record.id, ids[0])).toStrictEqual([
        { id: ids[1], message: streamMessage(2) },
        { id: ids[2], message: streamMessage(3) },
      ]);
      expect(await fixture.peer.eventsAfter(record.id, ids[1])).toStrictEqual([{ id: ids[2], message: streamMessage(3) }]);
      expect(await store.eventsAfter(record.id, ids[2])).toEqual([]);
      expect(await store.eventsAfter(record.id, foreign)).toBeUndefined();
      expect(await store.eventsAfter(other.id, foreign)).toEqual([]);
      expect(await store.eventsAfter(other.id, ids[0])).toBeUndefined();
      const garbage = ['', 'abc', '-1', '0', ` ${ids[0]}`, `0${ids[0]}`, `${ids[0]}.0`, '1e3', '99999999999999999999', "1' OR '1'='1"];
      for (const id of garbage) expect(await store.eventsAfter(record.id, id)).toBeUndefined();
      expect(await store.eventsAfter(randomUUID(), ids[0])).toBeUndefined();
    });

    it('keeps no reference to a message it was given or returned', async () => {
      const record = sessionRecord('main', Date.now());
      await store.create(record);
      const message = streamMessage(1) as { params: { data: { list: unknown[] } } } & JSONRPCMessage;
      const first = await store.appendEvent(record.id, streamMessage(0));
      await store.appendEvent(record.id, message);
      message.params.data.list.push('later');
      const [event] = (await store.eventsAfter(record.id, first))!;
      (event.message as typeof message).params.data.list.push('changed');
      expect(await store.eventsAfter(record.id, first)).toStrictEqual([{ id: event.id, message: streamMessage(1) }]);
    });

    it('follow/handles/followers: the handles a session follows, seen by every process, in the order they were followed', async () => {
      const record = sessionRecord('main', Date.now());
      const other = sessionRecord('main', Date.now());
      await store.create(record);
      await store.create(other);
      const [first, second] = [`payment:${randomUUID()}`, `payment:${randomUUID()}`];
      await store.follow(record.id, first);
      await sleep(2);
      await fixture.peer.follow(record.id, second);
      await store.follow(record.id, first);
      await sleep(2);
      await fixture.peer.follow(other.id, first);
      expect(await store.handles(record.id)).toEqual([first, second]);
      expect(await fixture.peer.handles(other.id)).toEqual([first]);
      expect(await store.followers(first, 10)).toEqual([record.id, other.id]);
      expect(await fixture.peer.followers(first, 1)).toEqual([record.id]);
      expect(await store.followers(first, 0)).toEqual([]);
      expect(await store.followers(first, Infinity)).toEqual([record.id, other.id]);
      expect(await store.followers(`payment:${randomUUID()}`, 10)).toEqual([]);
      expect(await store.handles(randomUUID())).toEqual([]);
      await fixture.peer.unfollow(record.id, first);
      await store.unfollow(record.id, first);
      expect(await store.handles(record.id)).toEqual([second]);
      expect(await store.followers(first, 10)).toEqual([other.id]);
      expect(await store.find(record.id)).toStrictEqual(record);
    });

    it('countHandles (when the store has it): how many handles the session follows, as every process sees them', async () => {
      if (!store.countHandles) return;
      const record = sessionRecord('main', Date.now());
      await store.create(record);
      const [first, second] = [`payment:${randomUUID()}`, `payment:${randomUUID()}`];
      expect(await store.countHandles(record.id)).toBe(0);
      await store.follow(record.id, first);
      await fixture.peer.follow(record.id, second);
      await store.follow(record.id, first);
      expect(await store.countHandles(record.id)).toBe(2);
      expect(await fixture.peer.countHandles!(record.id)).toBe(2);
      await fixture.peer.unfollow(record.id, first);
      expect(await store.countHandles(record.id)).toBe(1);
      expect(await store.countHandles(randomUUID())).toBe(0);
      await store.delete(record.id);
      expect(await store.countHandles(record.id)).toBe(0);
    });

    it('follow: a session that does not exist follows nothing; ended sessions stop following', async () => {
      const server = `server-${randomUUID()}`;
      const deleted = sessionRecord(server, 5_000);
      const idle = sessionRecord(server, 1_000);
      const handle = `payment:${randomUUID()}`;
      for (const record of [deleted, idle]) {
        await store.create(record);
        await store.follow(record.id, handle);
      }
      const ghost = randomUUID();
      await store.follow(ghost, handle);
      expect(await store.handles(ghost)).toEqual([]);
      expect((await store.followers(handle, 10)).sort()).toEqual([deleted.id, idle.id].sort());
      expect(await fixture.peer.delete(deleted.id)).toBe(true);
      expect(await store.expire(server, 2_000, 10)).toEqual([idle.id]);
      expect(await store.followers(handle, 10)).toEqual([]);
      expect(await store.handles(deleted.id)).toEqual([]);
      expect(await store.handles(idle.id)).toEqual([]);
    });

    it('pruneEvents: drops at most limit events kept before the cutoff', async () => {
      const record = sessionRecord('main', Date.now());
      const other = sessionRecord('main', Date.now());
      await store.create(record);
      await store.create(other);
      // Events of earlier cases share the storage: start from none kept before the cutoff.
      while ((await store.pruneEvents(Date.now() + 1, 1_000)) > 0);
      const old: [string, string][] = [];
      for (const [n, session] of [record, other, record, other, record].entries()) {
        old.push([session.id, await store.appendEvent(session.id, streamMessage(n))]);
      }
      await sleep(5);
      const cutoff = Date.now();
      await sleep(5);
      const recent = [await store.appendEvent(record.id, streamMessage(6)), await store.appendEvent(record.id, streamMessage(7))];

      expect(await store.pruneEvents(cutoff, 0)).toBe(0);
      expect(await store.pruneEvents(cutoff, 2)).toBe(2);
      expect(await fixture.peer.pruneEvents(cutoff, 10)).toBe(3);
      expect(await store.pruneEvents(cutoff, 10)).toBe(0);
      for (const [sessionId, id] of old) expect(await store.eventsAfter(sessionId, id)).toBeUndefined();
      expect(await store.eventsAfter(record.id, recent[0])).toStrictEqual([{ id: recent[1], message: streamMessage(7) }]);
      expect(await store.find(record.id)).toStrictEqual(record);
    });
  });
}
