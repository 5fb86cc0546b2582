import { Scope, type INestApplication, type Provider } from '@nestjs/common';
import { AuditTools, RequestScopedTools, requestScopedModule } from '../fixtures/request-scoped.tools.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { bootstrapError, listenApp } from '../utils/test-app.js';

describe('request-scoped tool providers', () => {
  describe('allowRequestScoped: true (the default)', () => {
    let app: INestApplication;
    let agent: TestClient;

    beforeEach(async () => {
      app = await listenApp([requestScopedModule()]);
      agent = await connectClient(await mcpUrl(app));
    });

    afterEach(async () => {
      await agent.close();
      await app.close();
    });

    it('resolves a new instance per call, with REQUEST holding { args, context }', async () => {
      const first = (await agent.call('whoami', { note: 'one' })).structuredContent as Record<string, unknown>;
      const second = (await agent.call('whoami', { note: 'two' })).structuredContent as Record<string, unknown>;
      expect(first).toEqual({
        instance: expect.any(Number),
        note: 'one',
        requestArgs: { note: 'one' },
        requestTool: 'whoami',
        requestSession: agent.transport.sessionId,
      });
      expect(second).toMatchObject({ note: 'two', requestArgs: { note: 'two' }, requestTool: 'whoami' });
      expect(second.instance).not.toBe(first.instance);
    });

    it('resolves per call even for concurrent calls', async () => {
      const results = await Promise.all(['a', 'b', 'c', 'd'].map((note) => agent.call('whoami', { note })));
      const seen = results.map((result) => result.structuredContent as { instance: number; note: string; requestArgs: unknown });
      expect(seen.map((entry) => entry.note)).toEqual(['a', 'b', 'c', 'd']);
      seen.forEach((entry) => expect(entry.requestArgs).toEqual({ note: entry.note }));
      expect(new Set(seen.map((entry) => entry.instance)).size).toBe(4);
    });

    it('gates a bound tool of a request-scoped provider and gives REQUEST the admitted state', async () => {
      const submitted = await agent.call('invoice.submit');
      expect(submitted.isError).toBeFalsy();
      expect(submitted.structuredContent).toMatchObject({ state: 'draft' });
      expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'invoice', state: 'review' });
      const again = await agent.call('invoice.submit');
      expect(again._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'review' });
    });

    it('resolves per call a provider that depends on a request-scoped one', async () => {
      const first = (await agent.call('audit')).structuredContent as { scopedInstance: number };
      const second = (await agent.call('audit')).structuredContent as { scopedInstance: number };
      expect(first.scopedInstance).toEqual(expect.any(Number));
      expect(second.scopedInstance).not.toBe(first.scopedInstance);
    });
  });

  describe('allowRequestScoped: false', () => {
    const bootstrapErrorWith = (providers: Provider[]) => bootstrapError([requestScopedModule(false, providers)]);

    it('refuses a request-scoped tool provider at bootstrap with the documented message', async () => {
      expect(await bootstrapErrorWith([RequestScopedTools])).toBe(
        "RequestScopedTools.whoami: the provider is request-scoped (or depends on one), and McpModule's allowRequestScoped is false; make it a singleton or allow request scope.",
      );
    });

    it('refuses a provider that depends on a request-scoped one', async () => {
      const scopedDependency = { provide: RequestScopedTools, useFactory: () => ({ instance: 0 }), scope: Scope.REQUEST };
      expect(await bootstrapErrorWith([AuditTools, scopedDependency])).toBe(
        "AuditTools.audit: the provider is request-scoped (or depends on one), and McpModule's allowRequestScoped is false; make it a singleton or allow request scope.",
      );
    });
  });
});
