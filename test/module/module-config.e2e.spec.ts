import { Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { FsmStateStore, InMemoryFsmStateStore, McpModule, type McpModuleOptions, type McpOptionsFactory } from '../../lib/index.js';
import type { AtomicFsmStateStore } from '../../lib/extend.js';
import { McpMachineRegistry } from '../../lib/machines/machine-registry.js';
import { billingModule } from '../fixtures/billing.app.js';
import { flatPaymentMachine, invoiceMachine, paymentMachine } from '../fixtures/billing.machines.js';
import { HandlerLog, InvoiceTools, PaymentTools } from '../fixtures/billing.tools.js';
import { connectClient, internalErrorText, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** Configuration the MCP options are built from, as an app's ConfigService would hold it. */
@Injectable()
class BillingConfig {
  readonly serverName = 'billing-from-config';
  readonly serverVersion = '2.3.4';
}

/** Builds the MCP options from {@link BillingConfig}. */
@Injectable()
class McpConfigService implements McpOptionsFactory {
  constructor(private readonly config: BillingConfig) {}

  createMcpOptions(): McpModuleOptions {
    return {
      name: `${this.config.serverName}-via-class`,
      version: this.config.serverVersion,
      machines: [invoiceMachine, paymentMachine],
    };
  }
}

@Module({ providers: [BillingConfig, McpConfigService], exports: [BillingConfig, McpConfigService] })
class BillingConfigModule {}

function appModule(mcp: DynamicModule): DynamicModule {
  @Module({})
  class AsyncBillingAppModule {}
  return { module: AsyncBillingAppModule, imports: [mcp], providers: [HandlerLog, InvoiceTools, PaymentTools] };
}

async function listen(module: DynamicModule): Promise<INestApplication> {
  const app = await listenApp([module]);
  return app;
}

const configurations: Array<[string, () => DynamicModule, string]> = [
  [
    'useFactory (injecting a config provider)',
    () =>
      McpModule.forRootAsync({
        imports: [BillingConfigModule],
        inject: [BillingConfig],
        useFactory: async (config: BillingConfig) => ({
          name: config.serverName,
          version: config.serverVersion,
          machines: [invoiceMachine, paymentMachine],
        }),
      }),
    'billing-from-config',
  ],
  [
    'useClass (an McpOptionsFactory)',
    () => McpModule.forRootAsync({ imports: [BillingConfigModule], useClass: McpConfigService }),
    'billing-from-config-via-class',
  ],
  [
    'useExisting (an exported McpOptionsFactory)',
    () => McpModule.forRootAsync({ imports: [BillingConfigModule], useExisting: McpConfigService }),
    'billing-from-config-via-class',
  ],
];

describe.each(configurations)('McpModule.forRootAsync with %s', (_label, mcp, serverName) => {
  let app: INestApplication;
  let agent: TestClient;

  beforeEach(async () => {
    app = await listen(appModule(mcp()));
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('serves the tools over HTTP with the built options, gated by state', async () => {
    expect(agent.client.getServerVersion()).toEqual({ name: serverName, version: '2.3.4' });
    expect(await agent.names()).toEqual(['invoice.submit', 'invoice.status', 'payment.authorize']);

    const refused = await agent.call('invoice.discharge');
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toEqual({
      code: 'FORBIDDEN',
      tool: 'invoice.discharge',
      machine: 'invoice',
      state: 'draft',
      allowedTools: ['invoice.submit', 'invoice.status'],
      errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(app.get(HandlerLog).count('invoice.discharge')).toBe(0);

    const submitted = await agent.call('invoice.submit');
    expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'invoice', state: 'review' });
    expect(await agent.names()).toEqual(['invoice.approve', 'invoice.reject', 'invoice.status', 'payment.authorize']);
  });
});

describe('McpModule options', () => {
  let app: INestApplication;
  let agent: TestClient;

  const start = async (options: Partial<McpModuleOptions>) => {
    app = await listen(billingModule(options));
    agent = await connectClient(await mcpUrl(app));
  };

  afterEach(async () => {
    await agent?.close();
    await app?.close();
  });

  describe("refusal: 'jsonrpc'", () => {
    it('turns FORBIDDEN into JSON-RPC error -32602 whose data carries the refusal', async () => {
      await start({ gate: { refusal: 'jsonrpc' } });
      const error = await agent.call('invoice.discharge').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((error as McpError).message).toContain(
        'FORBIDDEN: "invoice.discharge" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
      );
      expect((error as McpError).data).toEqual({
        code: 'FORBIDDEN',
        tool: 'invoice.discharge',
        machine: 'invoice',
        state: 'draft',
        allowedTools: ['invoice.submit', 'invoice.status'],
        errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
      });
      expect(app.get(HandlerLog).count('invoice.discharge')).toBe(0);
    });

    it('keeps successful calls and handler errors as tool results', async () => {
      await start({ gate: { refusal: 'jsonrpc' } });
      const submitted = await agent.call('invoice.submit');
      expect(submitted.isError).toBeFalsy();
      app.get(HandlerLog).failNext = 'throw';
      const thrown = await agent.call('invoice.reject');
      expect(thrown.isError).toBe(true);
      expect(textOf(thrown)).toMatch(internalErrorText('invoice.reject'));
      expect(textOf(thrown)).not.toContain('on purpose');
    });
  });

  describe('history, kept by the store (InMemoryFsmStateStore({ history: true }))', () => {
    const startWithHistory = () => start({ store: new InMemoryFsmStateStore({ history: true }) });

    it('keeps one row per transition with from, to, event and tool', async () => {
      await startWithHistory();
      const store = app.get<AtomicFsmStateStore>(FsmStateStore);
      await agent.call('invoice.submit');
      await agent.call('invoice.reject');
      await agent.call('invoice.submit');
      await agent.call('invoice.approve');
      await agent.call('invoice.discharge');
      await agent.call('invoice.discharge');

      const rows = await store.history(`invoice:session:${agent.transport.sessionId}`);
      expect(rows.map(({ from, to, event, tool }) => ({ from, to, event, tool }))).toEqual([
        { from: 'draft', to: 'review', event: 'SUBMIT', tool: 'invoice.submit' },
        { from: 'review', to: 'draft', event: 'REJECT', tool: 'invoice.reject' },
        { from: 'draft', to: 'review', event: 'SUBMIT', tool: 'invoice.submit' },
        { from: 'review', to: 'approved', event: 'APPROVE', tool: 'invoice.approve' },
        { from: 'approved', to: 'discharged', event: 'DISCHARGE', tool: 'invoice.discharge' },
      ]);
      for (const row of rows) {
        expect(row).toMatchObject({ machine: 'invoice', key: `invoice:session:${agent.transport.sessionId}` });
        expect(row.principal).toBe(agent.transport.sessionId);
        expect(Number.isNaN(Date.parse(row.at))).toBe(false);
      }
    });

    it('records the start of a handle-keyed workflow, and no row for refused or failed calls', async () => {
      await startWithHistory();
      const store = app.get<AtomicFsmStateStore>(FsmStateStore);
      const started = await agent.call('payment.authorize', { amount: 5, currency: 'EUR' });
      const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
      await agent.call('payment.refund', { paymentId });
      app.get(HandlerLog).failNext = 'throw';
      expect((await agent.call('payment.capture', { paymentId })).isError).toBe(true);
      await agent.call('payment.capture', { paymentId });
      const rows = await store.history(`payment:${paymentId}`);
      expect(rows.map(({ from, to, event, tool }) => ({ from, to, event, tool }))).toEqual([
        { from: null, to: 'authorized', event: 'AUTHORIZE', tool: 'payment.authorize' },
        { from: 'authorized', to: 'captured', event: 'CAPTURE', tool: 'payment.capture' },
      ]);
    });

    it('keeps no rows with the default in-memory store', async () => {
      await start({});
      const store = app.get<AtomicFsmStateStore>(FsmStateStore);
      expect(store).toBeInstanceOf(InMemoryFsmStateStore);
      await agent.call('invoice.submit');
      expect(await store.history(`invoice:session:${agent.transport.sessionId}`)).toEqual([]);
    });
  });

  describe.each(['table', 'xstate'] as const)("engine: '%s'", (engine) => {
    it('runs the invoice workflow through the module', async () => {
      // The table runs flat machines only: the 0.1 payment machine stands in for the sample's, which keeps context.
      await start({ engine, ...(engine === 'table' ? { machines: [invoiceMachine, flatPaymentMachine] } : {}) });
      expect(app.get(McpMachineRegistry, { strict: false }).engine('invoice').kind).toBe(engine);

      const transcript: unknown[] = [];
      const step = async (tool: string) => {
        const result = await agent.call(tool);
        transcript.push({
          tool,
          isError: result.isError ?? false,
          text: textOf(result),
          meta: result._meta ?? null,
          menu: await agent.names(),
        });
      };
      for (const tool of [
        'invoice.approve',
        'invoice.submit',
        'invoice.reject',
        'invoice.submit',
        'invoice.approve',
        'invoice.discharge',
        'invoice.submit',
      ]) {
        await step(tool);
      }
      const menu = (...bound: string[]) => [...bound, 'invoice.status', 'payment.authorize'];
      const gate = (state: string, ...bound: string[]) => ({
        'nestjs-mcp-fsm/state': { machine: 'invoice', state, allowedTools: [...bound, 'invoice.status'] },
      });
      expect(transcript).toEqual([
        {
          tool: 'invoice.approve',
          isError: true,
          text: 'FORBIDDEN: "invoice.approve" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
          meta: {
            'nestjs-mcp-fsm/error': {
              code: 'FORBIDDEN',
              tool: 'invoice.approve',
              machine: 'invoice',
              state: 'draft',
              allowedTools: ['invoice.submit', 'invoice.status'],
              errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
            },
          },
          menu: menu('invoice.submit'),
        },
        {
          tool: 'invoice.submit',
          isError: false,
          text: '{"submitted":true}',
          meta: gate('review', 'invoice.approve', 'invoice.reject'),
          menu: menu('invoice.approve', 'invoice.reject'),
        },
        { tool: 'invoice.reject', isError: false, text: 'rejected', meta: gate('draft', 'invoice.submit'), menu: menu('invoice.submit') },
        {
          tool: 'invoice.submit',
          isError: false,
          text: '{"submitted":true}',
          meta: gate('review', 'invoice.approve', 'invoice.reject'),
          menu: menu('invoice.approve', 'invoice.reject'),
        },
        {
          tool: 'invoice.approve',
          isError: false,
          text: 'approved',
          meta: gate('approved', 'invoice.discharge'),
          menu: menu('invoice.discharge'),
        },
        { tool: 'invoice.discharge', isError: false, text: '{"discharged":true}', meta: gate('discharged'), menu: menu() },
        {
          tool: 'invoice.submit',
          isError: true,
          text: 'FORBIDDEN: "invoice.submit" is not available while invoice is "discharged". Allowed now: invoice.status.',
          meta: {
            'nestjs-mcp-fsm/error': {
              code: 'FORBIDDEN',
              tool: 'invoice.submit',
              machine: 'invoice',
              state: 'discharged',
              allowedTools: ['invoice.status'],
              errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
            },
          },
          menu: menu(),
        },
      ]);
      expect(app.get(HandlerLog).runs).toEqual([
        'invoice.submit',
        'invoice.reject',
        'invoice.submit',
        'invoice.approve',
        'invoice.discharge',
      ]);
    });
  });
});
