import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A session opened at the HTTP level, holding its GET notification stream. */
export interface RawSession {
  sessionId: string;
  /** Calls a tool; throws unless it succeeded. */
  call: (tool: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
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
        ...(sessionId ? sessionHeaders(sessionId) : {}),
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
  const headers = sessionHeaders(sessionId);
  await expectStatus(await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId), 202);

  const stream = new AbortController();
  const get = await fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: stream.signal });
  if (get.status !== 200) throw new Error(`GET stream: ${get.status}`);
  return {
    sessionId,
    call: (tool, args) => callTool(url, sessionId, tool, args),
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

let nextCallId = 0;

/**
 * Calls a tool in the session `sessionId` (also one an SDK client holds) with one `fetch`,
 * and returns its result; throws unless it succeeded. String request ids keep clear of the
 * SDK client's numeric ones.
 */
export async function callTool(url: URL, sessionId: string, tool: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const id = `raw-${nextCallId++}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...sessionHeaders(sessionId), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  const text = await response.text();
  const messages: { id?: unknown; result?: CallToolResult }[] = response.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        // A priming event (2025-11-25: an event id with empty data) carries no message.
        .filter((line) => line.startsWith('data:') && line.slice('data:'.length).trim() !== '')
        .map((line) => JSON.parse(line.slice('data:'.length)))
    : [JSON.parse(text)];
  const result = messages.find((message) => message.id === id)?.result;
  if (!response.ok || !result || result.isError) throw new Error(`${tool} failed: ${response.status} ${text}`);
  return result;
}

function sessionHeaders(sessionId: string): Record<string, string> {
  return { 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION };
}

async function expectStatus(response: Response, status: number): Promise<void> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
}
