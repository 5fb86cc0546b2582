import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpInstanceFollowers } from './mcp-instance-followers.js';
import { McpSession } from './mcp-session.js';

const session = (id: string) => new McpSession('stateful', new Server({ name: 'spec', version: '1' }), id, { scope: 'session', id });

describe('McpInstanceFollowers', () => {
  let index: McpInstanceFollowers;

  beforeEach(() => (index = new McpInstanceFollowers()));

  it('finds the sessions that follow an instance, and only them', () => {
    const [a, b, c] = [session('a'), session('b'), session('c')];
    index.add(a, ['invoice:session:a', 'payment:p1']);
    index.add(b, ['invoice:session:b', 'payment:p1']);
    index.add(c, ['invoice:session:c']);
    expect([...index.followers('payment:p1')]).toEqual([a, b]);
    expect([...index.followers('invoice:session:c')]).toEqual([c]);
    expect(index.followers('payment:unknown').size).toBe(0);
  });

  it('lets several sessions follow one attachment instance', () => {
    const [stdio, other] = [session('stdio'), session('other')];
    index.add(stdio, ['invoice:attachment:local']);
    index.add(other, ['invoice:attachment:local']);
    expect(index.followers('invoice:attachment:local').size).toBe(2);
    index.remove(stdio);
    expect([...index.followers('invoice:attachment:local')]).toEqual([other]);
  });

  it('follows and unfollows instances of an indexed session', () => {
    const a = session('a');
    index.add(a, []);
    index.follow(a, 'payment:p1');
    index.follow(a, 'payment:p1');
    expect([...index.followers('payment:p1')]).toEqual([a]);
    index.unfollow(a, 'payment:p1');
    expect(index.followers('payment:p1').size).toBe(0);
    index.unfollow(a, 'payment:p1');
    expect(index.followers('payment:p1').size).toBe(0);
  });

  it('ignores sessions that were never indexed or were removed (stateless connections)', () => {
    const [stateless, closed] = [session('stateless'), session('closed')];
    index.follow(stateless, 'payment:p1');
    index.add(closed, ['payment:p2']);
    index.remove(closed);
    index.follow(closed, 'payment:p1');
    index.unfollow(closed, 'payment:p2');
    expect(index.followers('payment:p1').size).toBe(0);
    expect(index.followers('payment:p2').size).toBe(0);
    expect(index['sessionsByKey'].size).toBe(0);
    expect(index['keysBySession'].size).toBe(0);
  });

  it('drops a key once its last follower leaves, so the index holds only followed instances', () => {
    const sessions = Array.from({ length: 100 }, (_, i) => session(`s${i}`));
    sessions.forEach((each, i) => index.add(each, [`invoice:session:s${i}`, 'payment:shared']));
    sessions.forEach((each) => index.remove(each));
    expect(index['sessionsByKey'].size).toBe(0);
  });

  it('indexes at most maxFollowers sessions per instance, the earliest, and lets a newcomer in once one left', () => {
    const bounded = new McpInstanceFollowers(2);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(session);
    for (const each of [a, b, c, d]) bounded.add(each, [`invoice:session:${each.id}`]);
    expect([a, b, c].map((each) => bounded.follow(each, 'payment:p1'))).toEqual([true, true, false]);
    expect(bounded.follow(a, 'payment:p1')).toBe(true);
    expect([...bounded.followers('payment:p1')]).toEqual([a, b]);
    expect(bounded.followers(`invoice:session:${c.id}`).size).toBe(1);
    bounded.remove(a);
    expect(bounded.follow(d, 'payment:p1')).toBe(true);
    expect(bounded.follow(c, 'payment:p1')).toBe(false);
    expect([...bounded.followers('payment:p1')]).toEqual([b, d]);
    expect(bounded.follow(session('never-added'), 'payment:p2')).toBe(false);
  });

  it('says which instances left a follower out, until they have no follower left', () => {
    const bounded = new McpInstanceFollowers(1);
    const [a, b] = [session('a'), session('b')];
    bounded.add(a, ['payment:p1']);
    bounded.add(b, []);
    expect(bounded.leftOut('payment:p1')).toBe(false);
    expect(bounded.follow(b, 'payment:p1')).toBe(false);
    expect(bounded.leftOut('payment:p1')).toBe(true);
    bounded.remove(a);
    expect(bounded.leftOut('payment:p1')).toBe(false);
  });

  it('re-indexes a session added again under its new keys', () => {
    const a = session('a');
    index.add(a, ['payment:p1']);
    index.add(a, ['payment:p2']);
    expect(index.followers('payment:p1').size).toBe(0);
    expect([...index.followers('payment:p2')]).toEqual([a]);
  });
});
