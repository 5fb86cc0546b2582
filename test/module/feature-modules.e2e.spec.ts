import { Inject, Injectable, Module, type INestApplication, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  McpAuthenticator,
  McpHealthService,
  McpModule,
  McpSessionStore,
  McpWorkflowService,
  FsmStateStore,
  type McpModuleOptions,
} from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { WorkflowConsoleActions } from '../../lib/console/console-actions.js';
import { WorkflowConsoleCatalog } from '../../lib/console/console-catalog.js';
import { WorkflowConsoleData } from '../../lib/console/console-data.js';
import { WorkflowConsoleDiagrams } from '../../lib/console/console-diagrams.js';
import { WorkflowConsoleInbox } from '../../lib/console/console-inbox.js';
import { WorkflowConsoleStreams } from '../../lib/console/console.streams.js';
import { WorkflowConsoleSignIn } from '../../lib/console/console-sign-in.js';
import { WorkflowConsoleRoutes } from '../../lib/console/console.routes.js';
import { ModernServerFactory } from '../../lib/protocol/modern-server.factory.js';
import { McpSessionAdmission } from '../../lib/transports/session-admission.js';
import { SessionReplyForwarder } from '../../lib/transports/session-reply.forwarder.js';
import { StatefulHttpSessions } from '../../lib/transports/stateful-http.sessions.js';
import { StdioTransport } from '../../lib/transports/stdio.transport.js';
import { StreamableHttpTransport } from '../../lib/transports/streamable-http.transport.js';
import { invoiceMachine, paymentMachine } from '../fixtures/billing.machines.js';
import { HandlerLog, InvoiceTools, PaymentTools } from '../fixtures/billing.tools.js';

const HTTP = [StreamableHttpTransport, StatefulHttpSessions, McpSessionAdmission, SessionReplyForwarder, ModernServerFactory];
const CONSOLE = [
  WorkflowConsoleRoutes,
  WorkflowConsoleData,
  WorkflowConsoleStreams,
  WorkflowConsoleSignIn,
  WorkflowConsoleCatalog,
  WorkflowConsoleDiagrams,
  WorkflowConsoleActions,
  WorkflowConsoleInbox,
];
const STDIO = [StdioTransport];

/** A provider of the app's that injects everything McpModule exports. */
@Injectable()
class Injected {
  constructor(
    readonly workflows: McpWorkflowService,
    readonly health: McpHealthService,
    readonly authenticator: McpAuthenticator,
    @Inject(FsmStateStore) readonly store: FsmStateStore,
  ) {}
}

const base = { name: 'billing', version: '1.0.0', machines: [invoiceMachine, paymentMachine] } satisfies McpModuleOptions;

/** An app on `mcp` (an McpModule), with the billing tools and a provider that injects the module's exports. */
async function appOn(mcp: ReturnType<typeof McpModule.forRoot>): Promise<INestApplication> {
  @Module({ imports: [mcp], providers: [HandlerLog, InvoiceTools, PaymentTools, Injected] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** Whether the app has a provider under `type` anywhere, and what it is. */
function lookup(app: INestApplication, type: Type): { found: false } | { found: true; value: unknown } {
  try {
    return { found: true, value: app.get(type, { strict: false }) };
  } catch {
    return { found: false };
  }
}

/** The names of the Nest modules of the app. */
const moduleNames = (app: INestApplication): string[] => [...app.get(ModulesContainer).values()].map((module) => module.name);

describe('the feature modules McpModule composes from its options', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('forRoot without HTTP, console or stdio has none of their modules or providers, and still serves in memory', async () => {
    app = await appOn(McpModule.forRoot({ ...base, transports: { http: false } }));
    expect(moduleNames(app)).not.toEqual(expect.arrayContaining(['McpHttpTransportModule']));
    expect(moduleNames(app)).toEqual(
      expect.arrayContaining(['McpModule', 'McpOptionsModule', 'McpTelemetryModule', 'McpCoreModule', 'McpHealthModule']),
    );
    for (const type of [...HTTP, ...CONSOLE, ...STDIO]) {
      expect([type.name, lookup(app, type).found]).toEqual([type.name, false]);
    }
    const injected = app.get(Injected);
    expect(injected.workflows).toBeInstanceOf(McpWorkflowService);
    expect(injected.health).toBeInstanceOf(McpHealthService);
    expect(injected.authenticator).toBeInstanceOf(McpAuthenticator);
    expect(await injected.health.checkStore()).toMatchObject({ up: true });
    const client = await createMcpTestClient(app);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('invoice.submit');
    await client.close();
  });

  it('forRoot builds the HTTP, console and stdio providers the options ask for', async () => {
    app = await appOn(McpModule.forRoot({ ...base, console: true, transports: { stdio: true } }));
    for (const type of [...HTTP, ...CONSOLE, ...STDIO]) {
      expect([type.name, lookup(app, type)]).toEqual([type.name, { found: true, value: expect.any(type) }]);
    }
    expect(moduleNames(app)).toEqual(expect.arrayContaining(['McpHttpTransportModule', 'McpConsoleModule', 'McpStdioTransportModule']));
  });

  it('forRootAsync constructs nothing of a feature its factory leaves off, and builds those it sets', async () => {
    app = await appOn(McpModule.forRootAsync({ useFactory: async () => ({ ...base, transports: { http: false } }) }));
    for (const type of [...HTTP, ...CONSOLE, ...STDIO]) {
      expect([type.name, lookup(app, type)]).toEqual([type.name, { found: true, value: null }]);
    }
    expect(app.get(Injected).workflows).toBeInstanceOf(McpWorkflowService);
    await app.close();

    app = await appOn(McpModule.forRootAsync({ useFactory: () => ({ ...base, console: true }) }));
    for (const type of [...HTTP, ...CONSOLE]) {
      expect([type.name, lookup(app, type)]).toEqual([type.name, { found: true, value: expect.any(type) }]);
    }
    expect(lookup(app, StdioTransport)).toEqual({ found: true, value: null });
    expect(app.get(McpSessionStore, { strict: false })).toBeDefined();
  });
});
