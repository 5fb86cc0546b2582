import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BindState,
  defineMachine,
  MCP_ACCESS_DENIED_CODE,
  McpContext,
  McpModule,
  McpServedBy,
  McpTool,
  McpWorkflow,
  type McpToolContext,
} from '../../lib/index.js';
import { McpSessionRegistry } from '../../lib/extend.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { AppModule } from '../../sample/app.module.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { scopedBillingModule } from '../fixtures/scoped-billing.app.js';
import { eventually, textOf } from '../utils/http-client.js';

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** Counts `notifications/tools/list_changed` the client receives. */
function countListChanges(client: Client): { readonly count: number } {
  const counter = { count: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    counter.count += 1;
  });
  return counter;
}

/** Answers every `elicitation/create` with `answer`, recording the questions. */
function answerElicitations(client: Client, answer: ElicitResult): string[] {
  const questions: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    questions.push(request.params.message);
    return answer;
  });
  return questions;
}

describe("createMcpTestClient on the sample's AppModule (state in its SQLite file, no port)", () => {
  let dir: string;
  let database: string;
  let app: INestApplication;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-test-client-'));
    database = join(dir, 'sample.sqlite');
    process.env.SAMPLE_DB = database;
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
  });

  afterEach(async () => {
    await app.close();
    delete process.env.SAMPLE_DB;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The stored state of `key` in the sample's SQLite file, read with a connection of its own. */
  const storedState = (key: string): string | undefined => {
    const db = new Database(database, { readonly: true });
    try {
      return (db.prepare('SELECT state FROM mcp_fsm_state WHERE handle = ?').get(key) as { state: string } | undefined)?.state;
    } finally {
      db.close();
    }
  };

  it('serves the menu of each state, refuses a hidden tool with FORBIDDEN and the allowed tools, and sends list_changed', async () => {
    const client = await createMcpTestClient(app);
    const changes = countListChanges(client);
    expect(await names(client)).toEqual(['invoice.status', 'invoice.submit', 'payment.authorize', 'payment.status']);

    const refused = await call(client, 'invoice.approve');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'FORBIDDEN: "invoice.approve" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
    );
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({
      code: 'FORBIDDEN',
      machine: 'invoice',
      state: 'draft',
      allowedTools: ['invoice.submit', 'invoice.status'],
    });

    expect((await call(client, 'invoice.submit')).isError).toBeFalsy();
    await eventually(() => changes.count === 1);
    expect(await names(client)).toEqual(['invoice.approve', 'invoice.reject', 'invoice.status', 'payment.authorize', 'payment.status']);
  });

  it('keeps each client its own session: its invoice, stored in SQLite under its session key', async () => {
    const first = await createMcpTestClient(app);
    const second = await createMcpTestClient(app);
    await call(first, 'invoice.submit');
    expect(((await call(first, 'invoice.status')).structuredContent as { state: string }).state).toBe('review');
    expect(((await call(second, 'invoice.status')).structuredContent as { state: string }).state).toBe('draft');

    const sessions = [...app.get(McpSessionRegistry).sessions()];
    expect(sessions).toHaveLength(2);
    const keys = sessions.map((session) => session.sessionStoreKey('invoice'));
    expect(keys.map((key) => storedState(key!)).sort()).toEqual(['review', undefined]);
  });

  it('asks the user of a client that declares elicitation, and discharges after a yes', async () => {
    const client = await createMcpTestClient(app, { capabilities: { elicitation: {} } });
    const questions = answerElicitations(client, { action: 'accept', content: {} });
    await call(client, 'invoice.submit');
    await call(client, 'invoice.approve');
    const discharged = await call(client, 'invoice.discharge');
    expect(discharged.isError).toBeFalsy();
    expect(questions).toEqual([expect.stringContaining('Discharge invoice')]);
    expect(((await call(client, 'invoice.status')).structuredContent as { state: string }).state).toBe('discharged');
  });

  it('answers CONFIRMATION_REQUIRED to a client that declares no elicitation, and the invoice stays approved', async () => {
    const client = await createMcpTestClient(app);
    await call(client, 'invoice.submit');
    await call(client, 'invoice.approve');
    const refused = await call(client, 'invoice.discharge');
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(((await call(client, 'invoice.status')).structuredContent as { state: string }).state).toBe('approved');
  });

  it('makes a payment the handle of its caller: another principal gets UNKNOWN_HANDLE, the owner its ledger', async () => {
    const alice = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
    const bob = await createMcpTestClient(app, { auth: { clientId: 'bob', scopes: [] } });
    const started = await call(alice, 'payment.authorize', { amount: 20, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect(storedState(`payment:${paymentId}`)).toBe('authorized');

    const foreign = await call(bob, 'payment.capture', { paymentId });
    expect(foreign._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect((await call(alice, 'payment.capture', { paymentId })).isError).toBeFalsy();
    expect((await call(alice, 'payment.status', { paymentId })).structuredContent).toMatchObject({
      paymentId,
      state: 'captured',
      ledger: [
        { kind: 'authorize', amount: 20 },
        { kind: 'capture', amount: 20 },
      ],
    });
    expect(storedState(`payment:${paymentId}`)).toBe('captured');
  });

  it('ends the connection on client.close(), and app.close() ends the ones still open', async () => {
    const registry = app.get(McpSessionRegistry, { strict: false });
    const closed = await createMcpTestClient(app);
    const open = await createMcpTestClient(app);
    let openClosed = false;
    open.onclose = () => {
      openClosed = true;
    };
    expect(registry.size).toBe(2);
    await closed.close();
    expect(registry.size).toBe(1);
    await app.close();
    expect(openClosed).toBe(true);
    expect(registry.size).toBe(0);
  });
});

describe('createMcpTestClient with options.auth: the caller as a verified token says', () => {
  let app: INestApplication;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [scopedBillingModule({ transports: { http: false } })] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
  });

  afterEach(() => app.close());

  it('hides from an anonymous caller what needs a scope or role, and refuses a call of it with -32003 before anything runs', async () => {
    const client = await createMcpTestClient(app);
    expect(await names(client)).toEqual(['invoice.status', 'payment.start']);
    const refused = await call(client, 'invoice.approve').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ code: MCP_ACCESS_DENIED_CODE, data: { missingScopes: ['invoices:approve'] } });
    expect(app.get(HandlerLog).runs).toEqual([]);
  });

  it('shows and runs what the scopes allow; roles come from auth.extra.roles (the default auth.roles)', async () => {
    const approver = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: ['invoices:approve'] } });
    expect(await names(approver)).toEqual(['invoice.approve', 'invoice.status', 'payment.start']);
    expect((await call(approver, 'invoice.approve')).structuredContent).toEqual({ approved: true });

    const auditor = await createMcpTestClient(app, {
      auth: { clientId: 'carol', scopes: ['reports:read'], extra: { roles: ['auditor'] } },
    });
    expect(await names(auditor)).toEqual(['audit.export', 'audit.trail', 'invoice.status', 'payment.start']);
    expect((await call(auditor, 'audit.export')).structuredContent).toEqual({ exported: true });
    expect(app.get(HandlerLog).runs).toEqual(['invoice.approve', 'audit.export']);
  });

  it('makes the handle its caller starts that caller own, and the handler sees the caller in ctx.authInfo', async () => {
    const refunder = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: ['payments:refund'] } });
    const other = await createMcpTestClient(app, { auth: { clientId: 'bob', scopes: ['payments:refund'] } });
    const { paymentId } = (await call(refunder, 'payment.start')).structuredContent as { paymentId: string };
    expect((await call(other, 'payment.capture', { paymentId }))._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    await call(refunder, 'payment.capture', { paymentId });
    expect((await call(refunder, 'payment.refund', { paymentId })).structuredContent).toEqual({ refundedBy: 'alice' });
  });
});

const ticketMachine = defineMachine({
  id: 'ticket',
  initial: 'open',
  states: { open: { on: { CLOSE: 'closed' } }, closed: { type: 'final' } },
});

/** A tool that answers what the caller looks like to a handler. */
@Injectable()
@McpServedBy('admin')
@McpWorkflow(ticketMachine)
class TicketTools {
  @McpTool({ name: 'ticket.close', description: 'Close the ticket' })
  @BindState('open', 'CLOSE')
  close(@McpContext() ctx: McpToolContext) {
    const { authInfo, clientCapabilities } = ctx;
    return { authInfo: authInfo ?? null, elicitation: Boolean(clientCapabilities?.elicitation) };
  }
}

@Module({
  imports: [
    McpModule.forRoot({ name: 'desk', version: '1.0.0', machines: [ticketMachine], transports: { http: false } }),
    McpModule.forRoot({ name: 'admin', version: '1.0.0', machines: [ticketMachine], transports: { http: false }, isGlobal: false }),
  ],
  providers: [TicketTools],
})
class TwoServersModule {}

describe('createMcpTestClient in an app with several McpModules', () => {
  let app: INestApplication;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [TwoServersModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
  });

  afterEach(() => app.close());

  it('says which servers there are when the test names none, or one that does not exist', async () => {
    await expect(createMcpTestClient(app)).rejects.toThrow(
      "createMcpTestClient: the app has 2 MCP servers (desk, admin); pass { server: '<serverId>' } naming one.",
    );
    await expect(createMcpTestClient(app, { server: 'billing' })).rejects.toThrow(
      'createMcpTestClient: the app has no MCP server "billing" (servers: desk, admin).',
    );
  });

  it('connects to the server it names, whose handler sees the AuthInfo as given and the capabilities declared', async () => {
    const auth = { clientId: 'alice', scopes: ['tickets:close'], extra: { team: 'support' } };
    const client = await createMcpTestClient(app, { server: 'admin', auth, capabilities: { elicitation: {} } });
    expect(client.getServerVersion()).toEqual({ name: 'admin', version: '1.0.0' });
    expect((await call(client, 'ticket.close')).structuredContent).toEqual({
      authInfo: { token: 'mcp-test-client', ...auth },
      elicitation: true,
    });
  });
});
