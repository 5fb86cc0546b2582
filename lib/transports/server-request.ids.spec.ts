import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ServerRequestIds } from './server-request.ids.js';

const elicit = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'Sure?' } });

describe('ServerRequestIds', () => {
  const setUp = () => {
    const ids = new ServerRequestIds();
    const delivered: JSONRPCMessage[] = [];
    const session = ids.forSession('session-1', 'alice', (message) => delivered.push(message));
    return { ids, delivered, session };
  };

  it('gives each request to a client an id of this process, and hands its answer back under the id the SDK gave it', () => {
    const { ids, delivered, session } = setUp();
    const sent = session.outbound(elicit(0)) as { id: string };
    expect(sent).toMatchObject({ method: 'elicitation/create', params: { message: 'Sure?' } });
    expect(sent.id).toMatch(new RegExp(`^${ids.tag}-\\d+$`));
    expect(ServerRequestIds.senderOf(sent.id)).toBe(ids.tag);
    const waiting = ids.waiting(sent.id)!;
    expect(waiting).toMatchObject({ sessionId: 'session-1', principal: 'alice' });
    waiting.answer({ jsonrpc: '2.0', id: sent.id, result: { action: 'accept' } });
    expect(delivered).toEqual([{ jsonrpc: '2.0', id: 0, result: { action: 'accept' } }]);
    expect(ids.waiting(sent.id)).toBeUndefined();
    expect(ids.size).toBe(0);
  });

  it('numbers requests across sessions, so the same SDK id in two sessions is two requests', () => {
    const { ids, session } = setUp();
    const other = ids.forSession('session-2', 'bob', () => undefined);
    const first = (session.outbound(elicit(0)) as { id: string }).id;
    const second = (other.outbound(elicit(0)) as { id: string }).id;
    expect(first).not.toBe(second);
    expect(ids.waiting(second)).toMatchObject({ sessionId: 'session-2', principal: 'bob' });
  });

  it('names the request in a cancellation (the SDK timed out) and stops waiting for it', () => {
    const { ids, session } = setUp();
    const sent = (session.outbound(elicit(3)) as { id: string }).id;
    const cancel: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'timeout' } };
    expect(session.outbound(cancel)).toEqual({ ...cancel, params: { requestId: sent, reason: 'timeout' } });
    expect(ids.size).toBe(0);
  });

  it('leaves other messages as they are: responses, notifications, a cancellation of a request it does not know', () => {
    const { session } = setUp();
    const messages: JSONRPCMessage[] = [
      { jsonrpc: '2.0', id: 7, result: {} },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
    ];
    for (const message of messages) expect(session.outbound(message)).toBe(message);
  });

  it('waits for nothing once a request could not be sent or the session closed', () => {
    const { ids, session } = setUp();
    const unsent = session.outbound(elicit(0));
    session.outbound(elicit(1));
    session.outbound(elicit(2));
    session.unsent(unsent);
    expect(ids.size).toBe(2);
    session.close();
    expect(ids.size).toBe(0);
  });

  it('reads the sender only from ids of its shape', () => {
    for (const id of [0, '12', 'abc-1', `${'a'.repeat(16)}-`, `${'A'.repeat(16)}-1`, `${'a'.repeat(16)}-1-2`, undefined, null]) {
      expect(ServerRequestIds.senderOf(id)).toBeUndefined();
    }
    expect(ServerRequestIds.senderOf(`${'0a'.repeat(8)}-12`)).toBe('0a'.repeat(8));
    expect(new ServerRequestIds().tag).not.toBe(new ServerRequestIds().tag);
  });
});
