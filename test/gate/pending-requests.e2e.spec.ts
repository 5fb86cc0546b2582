import type { INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ListRootsRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ConfirmLog, confirmModule } from '../fixtures/confirm.app.js';
import { eventually, mcpUrl, textOf } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** The module's default `sessions.maxPendingRequests`. */
const DEFAULT_MAX_PENDING = 8;

const codeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

describe('requests to a client that never answers are bounded per session (sessions.maxPendingRequests)', () => {
  let app: INestApplication;
  let clients: Client[];
  /** The person's answers the held questions wait for. */
  let held: Array<(result: ElicitResult) => void>;

  /** A client whose user never answers until told to, and that declares roots it never lists. */
  const connect = async () => {
    const client = new Client({ name: 'silent', version: '1.0.0' }, { capabilities: { elicitation: {}, roots: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => new Promise<ElicitResult>((resolve) => held.push(resolve)));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await client.connect(new StreamableHTTPClientTransport(await mcpUrl(app)));
    clients.push(client);
    return {
      client,
      call: async (name: string) => (await client.callTool({ name, arguments: {} })) as CallToolResult,
    };
  };

  beforeEach(async () => {
    clients = [];
    held = [];
    app = await listenApp([confirmModule()]);
  });

  afterEach(async () => {
    for (const answer of held) answer({ action: 'cancel' });
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await app.close();
  });

  it('asks at most 8 questions at once; the call over it is refused CONFIRMATION_REQUIRED naming the limit, and nothing runs', async () => {
    const agent = await connect();
    const waiting = Array.from({ length: DEFAULT_MAX_PENDING }, () => agent.call('payout.discharge'));
    await eventually(() => held.length === DEFAULT_MAX_PENDING);

    const over = await agent.call('payout.discharge');
    expect(over.isError).toBe(true);
    expect(codeOf(over)).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(over)).toBe(
      'CONFIRMATION_REQUIRED: "payout.discharge" runs only after a person at the client says yes, and this session already waits for 8 answers from its client (transports.http.sessions.maxPendingRequests), so no question was sent; answer or cancel those first. It did not run; payout stays "approved".',
    );
    expect(held).toHaveLength(DEFAULT_MAX_PENDING);

    // A handler's own request to the client (roots/list) is over the limit too: a tool error that says why.
    const roots = await agent.call('client.roots');
    expect(roots.isError).toBe(true);
    expect(textOf(roots)).toMatch(/already waits for 8 answers from its client \(transports\.http\.sessions\.maxPendingRequests\)/);

    // The person says no to every question: the session may ask again.
    for (const answer of held.splice(0)) answer({ action: 'decline' });
    for (const result of await Promise.all(waiting)) expect(codeOf(result)).toBe('DECLINED');
    expect((await agent.call('client.roots')).structuredContent).toEqual({ roots: ['file:///work'] });
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);

    // Another session is not affected by this one's questions.
    const again = agent.call('payout.discharge');
    await eventually(() => held.length === 1);
    const other = await connect();
    const otherCall = other.call('payout.discharge');
    await eventually(() => held.length === 2);
    for (const answer of held.splice(0)) answer({ action: 'accept', content: {} });
    expect((await again).isError).toBeFalsy();
    expect((await otherCall).isError).toBeFalsy();
  });
});
