import { Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import {
  BindState,
  defineMachine,
  McpModule,
  McpPrompt,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  McpServedBy,
  McpContext,
  type McpModuleOptions,
  type McpToolContext,
} from '../../lib/index.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { bootstrapError, listenApp } from '../utils/test-app.js';

const ticketMachine = defineMachine({
  id: 'ticket',
  initial: 'open',
  states: { open: { on: { CLOSE: 'closed' } }, closed: { on: { REOPEN: 'open' } } },
});

const cartMachine = defineMachine({
  id: 'cart',
  initial: 'filling',
  states: { filling: { on: { PAY: 'paid' } }, paid: { type: 'final' } },
});

function server(name: string, path: string, options: Partial<McpModuleOptions> & { isGlobal?: boolean } = {}): DynamicModule {
  return McpModule.forRoot({ name, version: '1.0.0', engine: 'table', transports: { http: { path } }, ...options });
}

/** The admin server: not global, so only the modules that import it can inject its exports. */
const adminMcp = server('admin', '/admin/mcp', { machines: [ticketMachine], isGlobal: false });
/** The public server, from forRootAsync: global (the default), so every module can inject its exports. */
const publicMcp = McpModule.forRootAsync({
  useFactory: async (): Promise<McpModuleOptions> => ({
    name: 'public',
    version: '1.0.0',
    engine: 'table',
    machines: [cartMachine],
    transports: { http: { path: '/public/mcp' } },
  }),
});

@Injectable()
@McpServedBy('admin')
@McpWorkflow(ticketMachine)
class TicketTools {
  constructor(private readonly workflows: McpWorkflowService) {}

  @McpTool({ name: 'ticket.state', description: "The ticket's state, read through the workflow service" })
  async state(@McpContext() ctx: McpToolContext) {
    return (await this.workflows.get(ctx, { machine: 'ticket' }))?.state ?? 'none';
  }

  @McpTool({ name: 'admin.ping', description: 'Ping the admin server' })
  ping() {
    return 'admin pong';
  }

  @McpTool({ name: 'ticket.close', description: 'Close the ticket' })
  @BindState('open', 'CLOSE')
  close() {
    return 'closed';
  }

  @McpTool({ name: 'ticket.reopen', description: 'Reopen the ticket' })
  @BindState('closed', 'REOPEN')
  reopen() {
    return 'reopened';
  }
}

/** A feature module of the admin area that injects the server's exports, so imports the same McpModule value. */
@Module({ imports: [adminMcp], providers: [TicketTools] })
class TicketToolsModule {}

@Injectable()
@McpServedBy('admin')
class ReportTools {
  @McpTool({ name: 'admin.report', description: 'Report' })
  report() {
    return 'report';
  }
}

/** A feature module of the admin area with no McpModule of its own: its tools name their server. */
@Module({ providers: [ReportTools] })
class ReportsModule {}

@Module({ imports: [adminMcp, TicketToolsModule, ReportsModule] })
class AdminModule {}

@Injectable()
@McpServedBy('public')
@McpWorkflow(cartMachine)
class CartTools {
  constructor(private readonly workflows: McpWorkflowService) {}

  @McpTool({ name: 'public.ping', description: 'Ping the public server' })
  ping() {
    return 'public pong';
  }

  @McpTool({ name: 'cart.pay', description: 'Pay the cart' })
  @BindState('filling', 'PAY')
  pay() {
    return 'paid';
  }

  @McpTool({ name: 'cart.state', description: "The cart's state, read through the workflow service" })
  async state(@McpContext() ctx: McpToolContext) {
    return (await this.workflows.get(ctx, { machine: 'cart' }))?.state ?? 'none';
  }

  @McpPrompt({ name: 'cart.help', description: 'How to shop' })
  help() {
    return 'Fill the cart, then pay.';
  }
}

/** The public area hosts its McpModule and its tools in one module. */
@Module({ imports: [publicMcp], providers: [CartTools] })
class PublicModule {}

/** A shared module: each class (or method) names its server. */
@Injectable()
@McpServedBy('admin')
class AuditTools {
  @McpTool({ name: 'audit.log', description: 'Read the audit log' })
  log() {
    return 'audit';
  }

  @McpTool({ name: 'audit.status', description: 'Public status of the audit', server: 'public' })
  status() {
    return 'all good';
  }
}

@Injectable()
@McpServedBy('public')
class MiscTools {
  @McpTool({ name: 'misc.echo', description: 'Echo' })
  echo() {
    return 'echo';
  }
}

@Module({ providers: [AuditTools, MiscTools] })
class SharedModule {}

describe('Several McpModules in one app', () => {
  let app: INestApplication;
  let admin: TestClient;
  let shop: TestClient;

  beforeEach(async () => {
    app = await listenApp([AdminModule, PublicModule, SharedModule]);
    admin = await connectClient(await mcpUrl(app, '/admin/mcp'));
    shop = await connectClient(await mcpUrl(app, '/public/mcp'));
  });

  afterEach(async () => {
    await admin.close();
    await shop.close();
    await app.close();
  });

  it('each server says its own name', () => {
    expect(admin.client.getServerVersion()?.name).toBe('admin');
    expect(shop.client.getServerVersion()?.name).toBe('public');
  });

  it('lists on each server only the tools named for it', async () => {
    expect((await admin.names()).sort()).toEqual(['admin.ping', 'admin.report', 'audit.log', 'ticket.close', 'ticket.state']);
    expect((await shop.names()).sort()).toEqual(['audit.status', 'cart.pay', 'cart.state', 'misc.echo', 'public.ping']);
    expect(admin.client.getServerCapabilities()?.prompts).toBeUndefined();
    expect((await shop.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['cart.help']);
  });

  it("answers another server's tool as unknown", async () => {
    await expect(admin.call('cart.pay')).rejects.toThrow('Unknown tool "cart.pay"');
    await expect(shop.call('ticket.close')).rejects.toThrow('Unknown tool "ticket.close"');
    await expect(shop.call('audit.log')).rejects.toThrow('Unknown tool "audit.log"');
    expect(textOf(await admin.call('admin.ping'))).toBe('admin pong');
    expect(textOf(await shop.call('audit.status'))).toBe('all good');
  });

  it('gates a workflow on each server, with its own store', async () => {
    expect(textOf(await admin.call('ticket.close'))).toBe('closed');
    expect(await admin.names()).toContain('ticket.reopen');
    expect((await admin.call('ticket.close')).isError).toBe(true);

    expect(textOf(await shop.call('cart.pay'))).toBe('paid');
    expect(await shop.names()).not.toContain('cart.pay');
    expect((await shop.call('cart.pay')).isError).toBe(true);
  });

  it("injects into each server's tools that server's exports", async () => {
    expect(app.get(TicketTools, { strict: false })['workflows']).not.toBe(app.get(CartTools, { strict: false })['workflows']);
    expect(textOf(await admin.call('ticket.close'))).toBe('closed');
    expect(textOf(await admin.call('ticket.state'))).toBe('closed');
    expect(textOf(await shop.call('cart.pay'))).toBe('paid');
    expect(textOf(await shop.call('cart.state'))).toBe('paid');
  });
});

describe('Several McpModules: assignment errors at bootstrap', () => {
  @Injectable()
  class LooseTools {
    @McpTool({ name: 'loose', description: 'Belongs nowhere in particular' })
    loose() {
      return 'loose';
    }
  }

  it('refuses a tool that names no server, also in a module that imports two servers', async () => {
    @Module({ imports: [server('a', '/a', { isGlobal: false }), server('b', '/b', { isGlobal: false })], providers: [LooseTools] })
    class BothModule {}
    expect(await bootstrapError([BothModule])).toBe(
      "LooseTools.loose: this app has several MCP servers (a, b) and nothing names the one that serves it; servers are not inferred from imports. Add @McpServedBy('<serverId>') to LooseTools, or { server: '<serverId>' } to the decorator.",
    );
  });

  it('tells an app that relied on its imports which server to name', async () => {
    @Module({ imports: [server('a', '/a', { isGlobal: false })], providers: [LooseTools] })
    class AModule {}
    @Module({ imports: [server('b', '/b', { isGlobal: false })] })
    class BModule {}
    expect(await bootstrapError([AModule, BModule])).toBe(
      "LooseTools.loose: this app has several MCP servers (a, b) and nothing names the one that serves it; servers are not inferred from imports. Its module AModule imports the McpModule of \"a\": add @McpServedBy('a') to LooseTools (or { server: 'a' } to the decorator).",
    );
  });

  it('serves every handler from the one server of an app, wherever it is, without naming it', async () => {
    @Module({ providers: [LooseTools] })
    class FarModule {}
    const app = await listenApp([server('only', '/mcp', { isGlobal: false }), FarModule]);
    const client = await connectClient(await mcpUrl(app, '/mcp'));
    expect(await client.names()).toEqual(['loose']);
    await client.close();
    await app.close();
  });

  it('refuses a server name that no McpModule has, even with one server', async () => {
    @Injectable()
    class Misnamed {
      @McpTool({ name: 'misnamed', description: 'Wrong server', server: 'admni' })
      misnamed() {
        return '';
      }
    }
    @Module({ imports: [server('admin', '/mcp')], providers: [Misnamed] })
    class OneModule {}
    expect(await bootstrapError([OneModule])).toBe(
      'Misnamed.misnamed: is served by MCP server "admni", but no McpModule of the app has that serverId (servers: admin).',
    );
  });

  it('refuses two global servers, two servers on one path and two with one id', async () => {
    expect(await bootstrapError([server('a', '/a'), server('b', '/b')])).toMatch(
      /^McpModule: the McpModules of servers a, b are all global \(isGlobal defaults to true\)/,
    );
    expect(await bootstrapError([server('a', '/mcp', { isGlobal: false }), server('b', '/mcp', { isGlobal: false })])).toBe(
      'McpModule: servers "a" and "b" both serve HTTP on "/mcp"; give each its own transports.http.path.',
    );
    expect(await bootstrapError([server('a', '/a', { isGlobal: false }), server('b', '/b', { isGlobal: false, serverId: 'a' })])).toMatch(
      /^McpModule: two McpModules have the serverId "a"/,
    );
  });

  it('refuses injecting an McpModule export where it would come from another server than the one serving the tools', async () => {
    @Injectable()
    @McpServedBy('admin')
    class Injecting {
      constructor(readonly workflows: McpWorkflowService) {}

      @McpTool({ name: 'injecting', description: 'Injects the workflow service' })
      injecting() {
        return '';
      }
    }
    @Module({ providers: [Injecting] })
    class FeatureModule {}
    @Module({ imports: [server('admin', '/admin/mcp', { isGlobal: false }), FeatureModule] })
    class HostModule {}
    expect(await bootstrapError([HostModule, server('public', '/public/mcp')])).toBe(
      'Injecting injects McpWorkflowService, and its handlers are served by MCP server "admin", but Nest gave it the one of server "public" (global); import the McpModule of "admin" in FeatureModule (the same McpModule.forRoot(...) value), ahead of any other server\'s.',
    );

    @Injectable()
    @McpServedBy('b')
    class InjectingB {
      constructor(readonly workflows: McpWorkflowService) {}

      @McpTool({ name: 'injecting', description: 'Injects the workflow service' })
      injecting() {
        return '';
      }
    }
    @Module({ imports: [server('a', '/a', { isGlobal: false }), server('b', '/b', { isGlobal: false })], providers: [InjectingB] })
    class BothModule {}
    expect(await bootstrapError([BothModule])).toBe(
      'InjectingB injects McpWorkflowService, and its handlers are served by MCP server "b", but Nest gave it the one of server "a"; import the McpModule of "b" in BothModule (the same McpModule.forRoot(...) value), ahead of any other server\'s.',
    );
  });
});
