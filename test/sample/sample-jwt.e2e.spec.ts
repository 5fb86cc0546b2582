import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorizedError,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBearerClient, INITIALIZE, postJsonRpc, type BearerClient } from '../utils/bearer-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

type Status = { state: string; refundable: number; ledger: { kind: string; amount: number }[] };

const allowedTools = (result: CallToolResult) =>
  (result._meta?.['nestjs-mcp-fsm/state'] as { allowedTools: string[] } | undefined)?.allowedTools;

/** An OAuth client as a host implements one: tokens kept in memory, the browser step done by {@link TestOAuthProvider.consent}. */
class TestOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:1/callback';
  private client?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  private pending?: URL;
  /** What the SDK v2 client found while discovering (the metadata URL, the authorization server), kept for the callback leg. */
  private discovery?: OAuthDiscoveryState;

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sample-jwt-e2e',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.pending = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }

  /** What the user's browser does: opens the authorization URL and hands back the code its redirect carries. */
  async consent(): Promise<string> {
    const url = this.pending!;
    this.pending = undefined;
    const response = await fetch(url, { redirect: 'manual' });
    return new URL(response.headers.get('location')!).searchParams.get('code')!;
  }
}

describe('the sample with SAMPLE_AUTH=jwt', () => {
  let issuer: TestIssuer;
  let dir: string;
  let sample: SampleProcess;
  let clients: { close(): Promise<void> }[];
  let resource: string;

  const token = (sub: string, scope: string, options: { audience?: string; expiresIn?: number; org?: string } = {}) =>
    issuer.sign(
      { sub, scope, ...(options.org && { org: options.org }) },
      { audience: options.audience ?? resource, expiresIn: options.expiresIn },
    );
  const connect = async (bearer: string) => {
    const client = await connectBearerClient(sample.url, bearer);
    clients.push(client);
    return client;
  };
  const status = async (agent: BearerClient, paymentId: string) =>
    (await agent.call('payment.status', { paymentId })).structuredContent as Status;

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-sample-jwt-'));
    sample = await startSample({
      SAMPLE_DB: join(dir, 'sample.sqlite'),
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: issuer.issuer,
      SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    });
    resource = sample.url.href;
  });

  beforeEach(() => {
    clients = [];
    issuer.grantable = undefined;
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await sample.stop();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes its metadata at /.well-known/oauth-protected-resource/mcp with both scopes and workflows:read', async () => {
    const metadata = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', resource))).json();
    expect(metadata).toMatchObject({
      resource,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
    });
    expect(metadata.scopes_supported).toEqual(
      expect.arrayContaining(['payments:refund', 'payments:approve', 'invoices:approve', 'workflows:read']),
    );
  });

  it('lets a payments:approve holder of the team other than the requester approve a refund above the threshold, never the requester', async () => {
    const org = 'acme-jwt';
    const alice = await connect(await token('alice', 'payments:refund payments:approve', { org }));
    const paymentId = (await alice.call('payment.authorize', { amount: 250, currency: 'EUR' })).structuredContent?.paymentId as string;
    await alice.call('payment.capture', { paymentId });
    const asked = await alice.call('payment.refund', { paymentId, amount: 200 });
    expect(asked.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'refund_pending' });
    const { requestId } = asked.structuredContent as { requestId: string };
    expect((await status(alice, paymentId)).state).toBe('refund_pending');
    const own = await alice.call('payment.approve_refund', { paymentId, requestId });
    expect(own._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'SELF_APPROVAL' });
    const refunder = await connect(await token('bob', 'payments:refund', { org }));
    await expect(refunder.call('payment.approve_refund', { paymentId, requestId })).rejects.toThrow(
      /403|insufficient_scope|payments:approve/,
    );
    const approver = await connect(await token('carol', 'payments:approve', { org }));
    expect((await approver.call('payment.approve_refund', { paymentId, requestId })).structuredContent).toMatchObject({
      refunded: 200,
      requestedBy: 'alice',
      approvedBy: 'carol',
    });
    const after = await status(alice, paymentId);
    expect(after).toMatchObject({ state: 'partially_refunded', refundable: 50 });
    expect(after.ledger.filter((entry) => entry.kind === 'refund')).toEqual([{ kind: 'refund', amount: 200 }]);
  });

  it('answers no token with 401 naming the metadata, and a bad, expired or foreign token with invalid_token', async () => {
    const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', resource).href;
    const anonymous = await postJsonRpc(resource, INITIALIZE);
    expect(anonymous.status).toBe(401);
    expect(anonymous.wwwAuthenticate).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    for (const bearer of [
      await token('alice', '', { expiresIn: -120 }),
      await token('alice', '', { audience: 'http://127.0.0.1:9/mcp' }),
      await issuer.sign({ sub: 'alice' }, { audience: resource, issuer: 'http://127.0.0.1:9' }),
      'garbage',
    ]) {
      const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` });
      expect(reply.status).toBe(401);
      expect(reply.wwwAuthenticate).toMatch(/^Bearer error="invalid_token", /);
    }
  });

  it('serves the console at /workflows to a token with workflows:read only: 401 without a token, 403 insufficient_scope without the scope', async () => {
    const page = new URL('/workflows', resource);
    const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', resource).href;
    const anonymous = await fetch(page);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}", scope="workflows:read"`);
    const withoutScope = await fetch(page, { headers: { Authorization: `Bearer ${await token('ops', 'payments:refund')}` } });
    expect(withoutScope.status).toBe(403);
    expect(withoutScope.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="workflows:read"/);
    const stream = await fetch(new URL('/workflows/events', resource), { headers: { Authorization: `Bearer ${await token('ops', '')}` } });
    expect(stream.status).toBe(403);

    const agent = await connect(await token('ops', 'payments:refund'));
    const paymentId = (await agent.call('payment.authorize', { amount: 12, currency: 'EUR' })).structuredContent?.paymentId as string;
    const allowed = await fetch(page, { headers: { Authorization: `Bearer ${await token('ops', 'workflows:read')}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain(`data-instance="${paymentId}"`);
  });

  it('never lists payment.refund without payments:refund, refuses it with 403 naming the scope, refunds nothing; after a step-up on the same session it refunds', async () => {
    const agent = await connect(await token('alice', 'invoices:approve'));
    const sessionId = agent.transport.sessionId;
    const started = await agent.call('payment.authorize', { amount: 40, currency: 'EUR' });
    const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
    const captured = await agent.call('payment.capture', { paymentId });
    expect(captured.isError).toBeFalsy();
    // Not on any list: tools/list, nor the allowed tools a result or a refusal names.
    expect(allowedTools(captured)).toEqual(['payment.authorize', 'payment.status']);
    expect(await agent.names()).not.toContain('payment.refund');
    const twice = await agent.call('payment.capture', { paymentId });
    expect(twice._meta?.['nestjs-mcp-fsm/error']).toMatchObject({
      code: 'FORBIDDEN',
      allowedTools: ['payment.authorize', 'payment.status'],
    });
    expect(JSON.stringify(twice.content)).not.toContain('payment.refund');
    const diagram = async () =>
      ((await agent.client.readResource({ uri: 'workflow://payment/diagram' })).contents[0] as { text: string }).text;
    expect(await diagram()).not.toContain('payment.refund');
    const call = agent.call('payment.refund', { paymentId }).then(
      () => 'answered',
      (error: unknown) => error,
    );
    expect(await call).toMatchObject({ code: 403 });
    expect(agent.responses.at(-1)).toEqual({
      status: 403,
      wwwAuthenticate: expect.stringMatching(/^Bearer error="insufficient_scope", scope="payments:refund", resource_metadata="/),
    });
    expect(await status(agent, paymentId)).toMatchObject({ state: 'captured', refundable: 40 });
    expect((await status(agent, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture']);

    const listChanged = agent.listChanged();
    agent.token = await token('alice', 'invoices:approve payments:refund');
    expect(await agent.names()).toContain('payment.refund');
    expect(await diagram()).toContain('payment.refund');
    expect(allowedTools(await agent.call('payment.status', { paymentId }))).toEqual([
      'payment.authorize',
      'payment.refund',
      'payment.status',
    ]);
    const refunded = await agent.call('payment.refund', { paymentId });
    expect(refunded.isError).toBeFalsy();
    expect(agent.transport.sessionId).toBe(sessionId);
    expect(await status(agent, paymentId)).toMatchObject({ state: 'refunded', refundable: 0 });
    expect((await status(agent, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture', 'refund']);
    const deadline = Date.now() + 5_000;
    while (agent.listChanged() === listChanged && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(agent.listChanged()).toBeGreaterThan(listChanged);
  });

  it('keeps invoice.approve for invoices:approve, and a handle for its sub', async () => {
    const clerk = await connect(await token('bob', 'payments:refund'));
    await clerk.call('invoice.submit');
    expect(await clerk.names()).not.toContain('invoice.approve');
    const approver = await connect(await token('carol', 'invoices:approve'));
    await approver.call('invoice.submit');
    expect(await approver.names()).toContain('invoice.approve');
    const paymentId = (
      (await approver.call('payment.authorize', { amount: 5, currency: 'EUR' })).structuredContent as { paymentId: string }
    ).paymentId;
    const other = (await clerk.call('payment.status', { paymentId })) as CallToolResult;
    expect(other._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
  });

  it("lets the SDK client's own OAuth flow find the metadata from the 401, get a token, and step up on a 403", async () => {
    const provider = new TestOAuthProvider();
    issuer.subject = 'dana';
    issuer.grantable = new Set(['invoices:approve']);
    const first = new StreamableHTTPClientTransport(sample.url, { authProvider: provider });
    await expect(new Client({ name: 'oauth-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(await provider.consent());
    // The SDK asked for what the metadata lists; the "user" consented to less.
    expect(issuer.authorizations.at(-1)?.split(' ')).toEqual(expect.arrayContaining(['payments:refund', 'invoices:approve']));
    await first.close();

    const transport = new StreamableHTTPClientTransport(sample.url, { authProvider: provider });
    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const started = (await client.callTool({ name: 'payment.authorize', arguments: { amount: 9, currency: 'EUR' } })) as CallToolResult;
    const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
    await client.callTool({ name: 'payment.capture', arguments: { paymentId } });
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('payment.refund');

    issuer.grantable = new Set(['invoices:approve', 'payments:refund']);
    await expect(client.callTool({ name: 'payment.refund', arguments: { paymentId } })).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(await provider.consent());
    // The step-up asked for the scope the 403 named.
    expect(issuer.authorizations.at(-1)).toBe('payments:refund');
    const refunded = (await client.callTool({ name: 'payment.refund', arguments: { paymentId } })) as CallToolResult;
    expect(refunded.isError).toBeFalsy();
    const after = (await client.callTool({ name: 'payment.status', arguments: { paymentId } })).structuredContent as Status;
    expect(after.state).toBe('refunded');
  });

  it("lets the SDK v2 client's OAuth flow (2026-07-28) find the metadata, get a token and step up on a 403", async () => {
    const provider = new TestOAuthProvider();
    issuer.subject = 'erik';
    issuer.grantable = new Set(['invoices:approve']);
    const modern = () =>
      new ModernClient({ name: 'oauth-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const first = new ModernTransport(sample.url, { authProvider: provider });
    const firstClient = modern();
    // Whichever request goes first (2026-07-28 needs no initialize), the 401 starts the flow.
    await expect(firstClient.connect(first).then(() => firstClient.listTools())).rejects.toBeInstanceOf(ModernUnauthorizedError);
    await first.finishAuth(await provider.consent());
    // It found the metadata where the 401 said.
    expect(provider.discoveryState()?.resourceMetadataUrl).toBe(new URL('/.well-known/oauth-protected-resource/mcp', resource).href);
    await firstClient.close().catch(() => undefined);

    const transport = new ModernTransport(sample.url, { authProvider: provider });
    const client = modern();
    await client.connect(transport);
    clients.push(client);
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain('invoice.approve');
    expect(listed.tools.map((tool) => tool.name)).not.toContain('payment.refund');
    expect(listed).toMatchObject({ cacheScope: 'private' });
    const started = await client.callTool({ name: 'payment.authorize', arguments: { amount: 7, currency: 'EUR' } });
    const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
    await client.callTool({ name: 'payment.capture', arguments: { paymentId } });

    issuer.grantable = new Set(['invoices:approve', 'payments:refund']);
    await expect(client.callTool({ name: 'payment.refund', arguments: { paymentId } })).rejects.toBeInstanceOf(ModernUnauthorizedError);
    await transport.finishAuth(await provider.consent());
    // The v2 client asks for what it holds plus the scope the 403 named.
    expect(issuer.authorizations.at(-1)?.split(' ')).toEqual(expect.arrayContaining(['payments:refund']));
    const refunded = await client.callTool({ name: 'payment.refund', arguments: { paymentId } });
    expect(refunded.isError).toBeFalsy();
    const after = (await client.callTool({ name: 'payment.status', arguments: { paymentId } })).structuredContent as Status;
    expect(after.ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture', 'refund']);
  });
});
