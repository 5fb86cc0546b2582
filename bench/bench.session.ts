import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/** A session opened at the HTTP level, holding its GET notification stream. */
export interface RawSession {
  sessionId: string;
  /** Calls a tool without arguments; throws unless it succeeded. */
  call: (tool: string) => Promise<void>;
  /** DELETE, then drop the GET stream. */
  close: () => Promise<void>;
}

/**
 * Opens a session with the requests the SDK client sends (initialize, notifications/initialized,
 * the GET notification stream), written with `fetch` so that opening thousands of sessions
 * costs the client process little CPU.
 */
export async function openRawSession(url: URL): Promise<RawSession> {
  const post = (body: object, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION } : {}),
      },
      body: JSON.stringify(body),
    });

  const initialized = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench-churn', version: '1.0.0' } },
  });
  const sessionId = initialized.headers.get('mcp-session-id');
  const answer = await initialized.text();
  if (!initialized.ok || !sessionId || !answer.includes('"result"')) {
    throw new Error(`initialize failed: ${initialized.status} ${answer}`);
  }
  const headers = { 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION };
  await expectStatus(await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId), 202);

  const stream = new AbortController();
  const get = await fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: stream.signal });
  if (get.status !== 200) throw new Error(`GET stream: ${get.status}`);
  let nextId = 2;
  return {
    sessionId,
    call: async (tool) => {
      const called = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: tool, arguments: {} } }, sessionId);
      const text = await called.text();
      if (!called.ok || !text.includes('"result"') || text.includes('"isError":true')) throw new Error(`${tool} failed: ${text}`);
    },
    close: async () => {
      try {
        await expectStatus(await fetch(url, { method: 'DELETE', headers }), 200);
      } finally {
        stream.abort();
        await get.body?.cancel().catch(() => undefined);
      }
    },
  };
}

/** Opens a session, optionally calls one tool, and closes it; returns the session id. */
export async function churnSession(url: URL, tool?: string): Promise<string> {
  const session = await openRawSession(url);
  try {
    if (tool) await session.call(tool);
  } finally {
    await session.close();
  }
  return session.sessionId;
}

async function expectStatus(response: Response, status: number): Promise<void> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
}
