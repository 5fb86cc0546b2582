import { Body, Controller, type INestApplication, Module, Post, UnauthorizedException } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ListToolsResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, mcpUrl, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { listenApp, type HttpAdapterName } from '../utils/test-app.js';

/** A route of the app's own, to show that the MCP path's body handling leaves it as it was. */
@Controller('echo')
class EchoController {
  @Post()
  echo(@Body() body: unknown) {
    return body;
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/** Every way the MCP path is served: the framework's route and the direct one, on both adapters. */
const ROUTES: [HttpAdapterName, boolean][] = [
  ['express', false],
  ['fastify', false],
  ['express', true],
  ['fastify', true],
];

const MAX_BODY_BYTES = 64 * 1024;

/** The envelope of a 2026-07-28 request. */
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The JSON-RPC error body of a reply outside any request. */
const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** The error an SDK client request was refused with. */
async function refusal(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** A POST whose body is sent in chunks, without Content-Length. */
function postChunked(url: URL, size: number): Promise<Response> {
  const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) {
        controller.close();
        return;
      }
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
    duplex: 'half',
  } as RequestInit);
}

describe.each(ROUTES)('errors on the MCP path are JSON-RPC, on %s (direct: %s)', (adapter, direct) => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];

  beforeAll(async () => {
    app = await listenApp([billingModule({ transports: { http: { direct, maxBodyBytes: MAX_BODY_BYTES } } }), EchoModule], { adapter });
    url = await mcpUrl(app);
  });

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers a body that is not JSON with 400 and -32700', async () => {
    for (const body of ['{"jsonrpc": "2.0",', 'not json', '']) {
      const response = await postMcp(url, body);
      expect([body, response.status]).toEqual([body, 400]);
      expect(await response.json()).toEqual(jsonRpcError(-32700, 'Parse error: the request body is not valid JSON.'));
    }
  });

  it('answers an empty batch with 400 and -32600', async () => {
    const response = await postMcp(url, []);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(
      jsonRpcError(-32600, 'Invalid Request: the request body is an empty batch ([]); send a JSON-RPC message.'),
    );
  });

  it('answers a body over maxBodyBytes with 413 and a JSON-RPC error naming the option, with or without Content-Length', async () => {
    const tooLarge = jsonRpcError(
      -32000,
      `Payload Too Large: an MCP request body may be at most ${MAX_BODY_BYTES} bytes (transports.http.maxBodyBytes).`,
    );
    const declared = await postMcp(url, { ...RAW_INITIALIZE, padding: 'x'.repeat(MAX_BODY_BYTES) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual(tooLarge);
    const chunked = await postChunked(url, 4 * MAX_BODY_BYTES);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual(tooLarge);
    const fits = await postMcp(url, {
      ...RAW_INITIALIZE,
      params: { ...RAW_INITIALIZE.params, _meta: { padding: 'x'.repeat(MAX_BODY_BYTES - 1024) } },
    });
    expect(fits.status).toBe(200);
  });

  it('answers a body not declared JSON with 415 and a JSON-RPC error', async () => {
    for (const type of ['application/xml', 'text/plain', 'application/x-www-form-urlencoded']) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json, text/event-stream' },
        body: JSON.stringify(RAW_INITIALIZE),
      });
      expect([type, response.status]).toEqual([type, 415]);
      expect(await response.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringMatching(/^(Unsupported Media Type|The request was refused \(HTTP 415\))/) },
        id: null,
      });
    }
  });

  it('answers invalid params of built-in methods with -32602 and one line naming the field', async () => {
    const badInitialize = await postMcp(url, { ...RAW_INITIALIZE, params: { capabilities: {} } });
    expect(badInitialize.status).toBe(400);
    const initializeError = ((await badInitialize.json()) as { error: { code: number; message: string } }).error;
    expect(initializeError.code).toBe(-32602);
    expect(initializeError.message).toMatch(/^Invalid params for initialize: params\.protocolVersion: .+; params\.clientInfo: .+\.$/);

    const client = await connectClient(url);
    clients.push(client);
    const setLevel = await refusal(client.client.setLoggingLevel('loud' as 'info'));
    expect(setLevel.code).toBe(-32602);
    expect(setLevel.message).toMatch(
      /^MCP error -32602: Invalid params for logging\/setLevel: params\.level: Invalid option: expected one of "debug"\|.+\.$/,
    );
    expect(setLevel.message).not.toContain('\n');

    const list = await refusal(client.client.request({ method: 'tools/list', params: { cursor: 7 } } as never, ListToolsResultSchema));
    expect(list.code).toBe(-32602);
    expect(list.message).toBe(
      'MCP error -32602: Invalid params for tools/list: params.cursor: Invalid input: expected string, received number.',
    );
    expect(await client.names()).toContain('invoice.submit');

    // The same in MCP 2026-07-28, where the SDK v2 answers them.
    for (const [method, params, field] of [
      ['tools/list', { cursor: 7 }, 'params.cursor'],
      ['tools/call', { name: 7 }, 'params.name'],
    ] as const) {
      const modern = await postMcp(
        url,
        { jsonrpc: '2.0', id: 9, method, params: { ...params, _meta: MODERN_META } },
        {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        },
      );
      expect(await modern.json()).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32602, message: `Invalid params for ${method}: ${field}: Invalid input: expected string, received number.` },
      });
    }
  });

  it("leaves the app's other routes to the app's body parser", async () => {
    const echoUrl = new URL('/echo', url);
    const echoed = await fetch(echoUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(echoed.status).toBe(201);
    expect(await echoed.json()).toEqual({ a: 1 });
    const broken = await fetch(echoUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ statusCode: 400 });
  });
});

describe.each(['express', 'fastify'] as const)('the default body limit of the MCP path on %s', (adapter) => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it.each([false, true])('takes a 1.5 MB request (direct: %s), whatever the app parser takes on its own routes', async (direct) => {
    app = await listenApp([billingModule({ transports: { http: { direct } } }), EchoModule], { adapter });
    const url = await mcpUrl(app);
    const client = await connectClient(url);
    try {
      const listed = await postMcp(
        url,
        { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { padding: 'x'.repeat(1536 * 1024) } } },
        { 'mcp-session-id': client.transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
      );
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('invoice.submit');
    } finally {
      await client.close();
    }
    // Express's own parser keeps its 100 KB limit on the app's routes; Fastify's its 1 MB.
    const appLimit = adapter === 'express' ? 100 * 1024 : 1024 * 1024;
    const echo = await fetch(new URL('/echo', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(appLimit) }),
    });
    expect(echo.status).toBe(413);
  });

  it('refuses a maxBodyBytes that is not a positive whole number at startup', async () => {
    let error: unknown;
    try {
      app = await listenApp([billingModule({ transports: { http: { maxBodyBytes: 0 } } })], { adapter });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toEqual(
      new Error('McpModule: transports.http.maxBodyBytes must be a whole number of bytes from 1 to 2147483647; got 0.'),
    );
  });
});

/** Auth that fails: `app.use` middleware on Express, an `onRequest` hook on Fastify. */
function failingAuth(adapter: HttpAdapterName) {
  return (app: INestApplication) => {
    if (adapter === 'express') {
      app.use((req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
        res.setHeader('WWW-Authenticate', 'Bearer');
        next(req.headers.authorization ? undefined : new UnauthorizedException('A bearer token is required.'));
      });
      return;
    }
    (app as NestFastifyApplication)
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', async (request, reply) => {
        void reply.header('WWW-Authenticate', 'Bearer');
        if (!request.headers.authorization) throw new UnauthorizedException('A bearer token is required.');
      });
  };
}

describe.each(['express', 'fastify'] as const)("errors of the app's middleware on the MCP path on %s", (adapter) => {
  let app: INestApplication;

  afterEach(async () => {
    await app.close();
  });

  it('are JSON-RPC with their status and headers', async () => {
    app = await listenApp([billingModule()], { adapter, configure: failingAuth(adapter) });
    const url = await mcpUrl(app);
    const refused = await postMcp(url, RAW_INITIALIZE);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refused.json()).toEqual(jsonRpcError(-32000, 'A bearer token is required.'));
    expect((await postMcp(url, RAW_INITIALIZE, { authorization: 'Bearer alice' })).status).toBe(200);
  });
});
