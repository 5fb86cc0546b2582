import { ConsoleLogger, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { CountingFsmStateStore } from '../fixtures/counting-fsm-state.store.js';
import { orderPipelineModule, PipelineLog, Principal } from '../fixtures/order.pipeline.js';
import { connectClient, internalErrorText, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

describe('tool handlers run inside the Nest pipeline', () => {
  let app: INestApplication;
  let store: CountingFsmStateStore;
  let log: PipelineLog;
  let agent: TestClient;

  const stateOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/state'] as { state: string } | undefined)?.state;
  const currentState = async () => stateOf(await agent.call('order.inspect'));
  const storeKey = () => `order:session:${agent.transport.sessionId}`;

  beforeEach(async () => {
    store = new CountingFsmStateStore();
    app = await listenApp([orderPipelineModule(store)]);
    log = app.get(PipelineLog);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  const checkout = async () => {
    app.get(Principal).roles.add('clerk');
    const result = await agent.call('order.checkout');
    expect(result.isError).toBeFalsy();
    expect(stateOf(result)).toBe('checkout');
  };

  describe('@UseGuards', () => {
    it('refuses the call when the guard returns false: error result, handler not run', async () => {
      const result = await agent.call('order.checkout');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Forbidden resource');
      expect(result._meta?.['nestjs-mcp-fsm/error']).toBeUndefined();
      expect(log.count('order.checkout')).toBe(0);
    });

    it('runs before the FSM claim: a refused call takes no claim and leaves the state unchanged', async () => {
      const refused = await agent.call('order.checkout');
      expect(refused.isError).toBe(true);
      expect(store.claims).toHaveLength(0);
      expect(await store.load(storeKey())).toBeUndefined();
      expect(log.guardCalls).toHaveLength(1);
      expect(log.guardCalls[0].stateBefore).toBeUndefined();
      expect(await currentState()).toBe('cart');
      expect(await agent.names()).toContain('order.checkout');

      app.get(Principal).roles.add('clerk');
      const permitted = await agent.call('order.checkout');
      expect(permitted.isError).toBeFalsy();
      expect(textOf(permitted)).toBe('checked out');
      expect(stateOf(permitted)).toBe('checkout');
      expect(store.claims.map((claim) => claim.key)).toEqual([storeKey()]);
      expect((await store.load(storeKey()))?.state).toBe('checkout');
      expect(log.count('order.checkout')).toBe(1);
    });

    it('reads custom metadata with Reflector from context.getHandler(), in an "mcp" context', async () => {
      app.get(Principal).roles.add('auditor');
      expect((await agent.call('order.checkout')).isError).toBe(true);
      app.get(Principal).roles.add('clerk');
      expect((await agent.call('order.checkout')).isError).toBeFalsy();
      expect(log.guardCalls).toEqual([
        { type: 'mcp', roles: ['clerk'], className: 'OrderTools', stateBefore: undefined },
        { type: 'mcp', roles: ['clerk'], className: 'OrderTools', stateBefore: undefined },
      ]);
    });
  });

  describe('@UseInterceptors', () => {
    it('transforms the result, and the transition still fires', async () => {
      await checkout();
      expect((await agent.call('order.pay', { amount: '10.00' })).isError).toBeFalsy();
      const shipped = await agent.call('order.ship');
      expect(shipped.isError).toBeFalsy();
      expect(shipped.structuredContent).toEqual({ envelope: 'v1', data: { carrier: 'post' } });
      expect(JSON.parse(textOf(shipped))).toEqual({ envelope: 'v1', data: { carrier: 'post' } });
      expect(stateOf(shipped)).toBe('shipped');
      expect(log.count('order.ship')).toBe(1);
    });
  });

  describe('pipes on @McpArgs', () => {
    it('transforms one argument with the pipe and passes the others through', async () => {
      await checkout();
      const paid = await agent.call('order.pay', { amount: '12.50' });
      expect(paid.isError).toBeFalsy();
      expect(paid.structuredContent).toEqual({ cents: 1250, typeofCents: 'number', raw: '12.50' });
      expect(stateOf(paid)).toBe('paid');
    });

    it('a pipe that throws BadRequestException gives an error result with its message and fires no transition', async () => {
      await checkout();
      const refused = await agent.call('order.pay', { amount: 'twelve' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('amount must look like "12.50", got "twelve"');
      expect(refused._meta?.['nestjs-mcp-fsm/state']).toBeUndefined();
      expect(log.count('order.pay')).toBe(0);
      expect((await store.load(storeKey()))?.state).toBe('checkout');
      expect(await currentState()).toBe('checkout');

      // Nothing of the refused call holds the instance: the corrected call is not BUSY.
      const paid = await agent.call('order.pay', { amount: '12.00' });
      expect(paid.isError).toBeFalsy();
      expect(stateOf(paid)).toBe('paid');
    });
  });

  describe('@UseFilters', () => {
    it('maps the caught error to the returned value; the failed handler fires no transition', async () => {
      await checkout();
      log.warehouseDown = 'offline';
      const result = await agent.call('order.cancel');
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        cancelled: false,
        retryLater: true,
        reason: 'warehouse offline',
        hostType: 'mcp',
      });
      expect((await store.load(storeKey()))?.state).toBe('checkout');
      expect(await currentState()).toBe('checkout');

      log.warehouseDown = undefined;
      const cancelled = await agent.call('order.cancel');
      expect(textOf(cancelled)).toBe('cancelled');
      expect(stateOf(cancelled)).toBe('cart');
    });

    it('leaves errors it does not catch to the default handling (error result)', async () => {
      await checkout();
      log.warehouseDown = 'crash';
      const result = await agent.call('order.cancel');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(internalErrorText('order.cancel'));
      expect(await currentState()).toBe('checkout');
    });
  });

  describe('@McpContext', () => {
    it('gives the session id, tool name, machine and state of the call', async () => {
      await agent.names();
      const first = await agent.call('order.inspect');
      expect(agent.transport.sessionId).toEqual(expect.any(String));
      expect(first.structuredContent).toMatchObject({
        toolName: 'order.inspect',
        sessionId: agent.transport.sessionId,
        machine: 'order',
        state: 'cart',
        hasSignal: true,
      });
      await checkout();
      const second = await agent.call('order.inspect');
      expect(second.structuredContent).toMatchObject({ sessionId: agent.transport.sessionId, state: 'checkout' });
    });

    it('extra.sendNotification sends progress notifications the client receives', async () => {
      const progress: Progress[] = [];
      const result = (await agent.client.callTool({ name: 'order.inspect', arguments: {} }, undefined, {
        onprogress: (update) => progress.push(update),
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(progress).toEqual([
        { progress: 1, total: 2, message: 'half way' },
        { progress: 2, total: 2, message: 'done' },
      ]);
    });
  });

  describe("logging through Nest's exception handling", () => {
    class CapturingLogger extends ConsoleLogger {
      readonly errors: string[] = [];

      override error(message: unknown, ...rest: unknown[]): void {
        const text = message instanceof Error ? message.message : String(message);
        this.errors.push([text, ...rest.map(String)].join(' | '));
      }
      override warn(): void {}
      override log(): void {}
      override debug(): void {}
      override verbose(): void {}
    }

    it('does not log a gate refusal as an application error; a crashing handler is logged once, with its error id', async () => {
      const logger = new CapturingLogger();
      const moduleRef = await Test.createTestingModule({ imports: [orderPipelineModule()] }).compile();
      const logged = moduleRef.createNestApplication({ logger });
      await logged.listen(0, '127.0.0.1');
      const client = await connectClient(await mcpUrl(logged));
      try {
        const refused = await client.call('order.ship');
        expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'cart' });
        expect(logger.errors.filter((line) => line.includes('FORBIDDEN'))).toEqual([]);

        logged.get(Principal).roles.add('clerk');
        await client.call('order.checkout');
        logged.get(PipelineLog).warehouseDown = 'crash';
        const crashed = textOf(await client.call('order.cancel'));
        expect(crashed).toMatch(internalErrorText('order.cancel'));
        expect(crashed).not.toContain('warehouse');
        const errorId = /error id ([0-9a-f]+)/.exec(crashed)![1];
        expect(logger.errors.filter((line) => line.includes('warehouse crashed'))).toEqual([
          expect.stringContaining(`Tool "order.cancel" failed (error id ${errorId}): warehouse crashed`),
        ]);
      } finally {
        await client.close();
        await logged.close();
      }
    });
  });
});
