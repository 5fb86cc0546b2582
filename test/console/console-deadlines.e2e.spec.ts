import type { INestApplication } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryFsmStateStore, McpWorkflowService } from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { EXPIRY, expiryModule, SETTLE } from '../fixtures/transfer-expiry.app.js';
import { eventually, mcpUrl } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** The `data-deadline` rows of an instance page, as their attributes and cells say. */
const deadlineRows = (page: string) =>
  [
    ...page.matchAll(
      /<tr data-deadline="([^"]*)" data-event="([^"]*)" data-due-at="([^"]*)" data-attempts="(\d+)">\s*<td class="mono name">([^<]*)<\/td>/g,
    ),
  ].map(([, id, event, dueAt, attempts, name]) => ({ id, event, dueAt, attempts: Number(attempts), name }));

/** The actor cells of an instance page's history, newest first. */
const actors = (page: string) =>
  [...page.matchAll(/<td class="mono principal" data-actor="([^"]*)" data-actor-kind="([^"]*)">([^<]*)/g)].map(
    ([, recorded, kind, text]) => ({
      recorded,
      kind,
      text,
    }),
  );

describe('the workflow console: pending deadlines, and history naming deadlines and outside actors', () => {
  let app: INestApplication;
  let store: InMemoryFsmStateStore;
  let url: URL;

  beforeEach(async () => {
    store = new InMemoryFsmStateStore({ history: true });
    app = await listenApp([expiryModule(store, { console: true })]);
    url = await mcpUrl(app);
  });

  afterEach(async () => {
    await app.close();
  });

  const page = async (transferId: string) => {
    const response = await fetch(new URL(`/workflows/transfer/${transferId}`, url));
    expect(response.status).toBe(200);
    return response.text();
  };

  it('shows a waiting request’s expiry (name, event, due, attempts), then the history row the deadline wrote, named for people', async () => {
    const client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    const { transferId } = (await call('transfer.open', {})).structuredContent as { transferId: string };
    const asked = Date.now();
    await call('transfer.send', { transferId, amount: 150 });
    const [pending] = await store.pendingTimers(`transfer:${transferId}`);

    const waiting = deadlineRows(await page(transferId));
    expect(waiting).toEqual([
      {
        id: EXPIRY,
        event: 'transfer.reject',
        dueAt: new Date(pending.dueAt).toISOString(),
        attempts: 0,
        name: 'expiry of transfer.send&#39;s request',
      },
    ]);
    expect(Date.parse(waiting[0].dueAt)).toBeGreaterThanOrEqual(asked + 1_500);

    await eventually(async () => (await store.load(`transfer:${transferId}`))?.state === 'ready', 6_000);
    const expired = await page(transferId);
    expect(deadlineRows(expired)).toEqual([]);
    expect(expired).toContain('No pending deadlines.');
    expect(actors(expired)[0]).toEqual({
      recorded: `deadline:${EXPIRY}`,
      kind: 'deadline',
      text: 'deadline (expiry of transfer.send&#39;s request) ',
    });
    expect(expired).toContain('(rejected; asked by alice: expired)');
    await client.close();
  });

  it('names an after transition’s timer by its delay, and shows a back office’s actor as recorded', async () => {
    const client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    const { transferId } = (await call('transfer.open', {})).structuredContent as { transferId: string };
    await call('transfer.send', { transferId, amount: 150 });
    const ref = { machine: 'transfer', handle: transferId };
    const { requestId } = (await app.get(McpWorkflowService).waiting(ref))!;
    await app.get(McpWorkflowService).approve(ref, { actor: 'psp-webhook', requestId });
    await eventually(async () => (await store.load(`transfer:${transferId}`))?.state === 'settled', 6_000);
    expect(actors(await page(transferId)).map(({ recorded, kind, text }) => ({ recorded, kind, text: text.trim() }))).toEqual([
      { recorded: `deadline:${SETTLE}`, kind: 'deadline', text: 'deadline (200)' },
      { recorded: 'psp-webhook', kind: 'recorded', text: 'psp-webhook' },
      { recorded: 'alice', kind: 'recorded', text: 'alice' },
      { recorded: 'alice', kind: 'recorded', text: 'alice' },
    ]);
    await client.close();
  });
});
