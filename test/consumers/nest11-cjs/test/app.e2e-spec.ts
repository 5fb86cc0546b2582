import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpTestClient } from 'nestjs-mcp-fsm/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppModule } from './../src/app.module';
import { InvoiceService } from './../src/invoice.service';

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
/** Waits (briefly) until `check` holds: a notification may arrive a tick after the result it belongs to. */
const eventually = async (check: () => boolean) => {
  for (let tries = 0; !check() && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
};
const menu = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('the billing app over MCP (e2e, in memory)', () => {
  let dir: string;
  let app: INestApplication;
  let client: Client;
  let listChanged: number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nest11-consumer-'));
    process.env.DB_FILE = join(dir, 'app.sqlite');
    const moduleFixture = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleFixture.createNestApplication({ logger: false });
    await app.init();
    client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
    listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
  });

  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the tools of each state, refuses a hidden one with FORBIDDEN, and tells the client when the menu changes', async () => {
    expect(await menu(client)).toEqual(['invoice.status', 'invoice.submit']);

    const refused = await call(client, 'invoice.discharge', { reference: 'PAY-1' });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([
      {
        type: 'text',
        text: 'FORBIDDEN: "invoice.discharge" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
      },
    ]);
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({
      code: 'FORBIDDEN',
      allowedTools: ['invoice.submit', 'invoice.status'],
    });
    expect(app.get(InvoiceService).discharged).toEqual([]);

    await call(client, 'invoice.submit');
    await eventually(() => listChanged === 1);
    expect(await menu(client)).toEqual(['invoice.approve', 'invoice.status']);
    await call(client, 'invoice.approve');
    expect(await menu(client)).toEqual(['invoice.discharge', 'invoice.status']);

    const discharged = await call(client, 'invoice.discharge', { reference: 'PAY-1' });
    expect(discharged.structuredContent).toEqual({ discharged: 'PAY-1' });
    expect(discharged._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'invoice', state: 'discharged' });
    await eventually(() => listChanged === 3);
    expect(await menu(client)).toEqual(['invoice.status']);
    expect(app.get(InvoiceService).discharged).toEqual(['PAY-1']);
  });

  it('stores the state in SQLite through TypeOrmFsmStateStore', async () => {
    await call(client, 'invoice.submit');
    const rows: { machine: string; state: string }[] = await app.get(DataSource).query('SELECT machine, state FROM mcp_fsm_state');
    expect(rows).toEqual([{ machine: 'invoice', state: 'review' }]);
  });
});
