import { INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpModule } from 'nestjs-mcp-fsm';
import { createMcpTestClient } from 'nestjs-mcp-fsm/testing';
import { AddressInfo } from 'node:net';
import { invoiceMachine } from './../src/invoice.machine';
import { InvoiceService } from './../src/invoice.service';
import { InvoiceTools } from './../src/invoice.tools';

/** The billing tools behind bearer JWTs (auth.jwt), which jose verifies: an ES module Jest cannot load in CommonJS mode. */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'billing',
      version: '1.0.0',
      machines: [invoiceMachine],
      auth: { jwt: { issuer: 'https://issuer.example', jwksUrl: 'https://issuer.example/jwks' } },
      transports: { http: { path: '/mcp' } },
    }),
  ],
  providers: [InvoiceService, InvoiceTools],
})
class JwtAppModule {}

describe('auth.jwt under Jest in CommonJS mode, where jose cannot be loaded', () => {
  let app: INestApplication;

  beforeEach(async () => {
    const moduleFixture = await Test.createTestingModule({ imports: [JwtAppModule] }).compile();
    app = moduleFixture.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
  });

  afterEach(() => app.close());

  it('boots, and answers a request with a bearer token 503 (fail closed), not as verified', async () => {
    const { port } = app.getHttpServer().address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer a.b.c', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(503);
  });

  it('still serves the tools to createMcpTestClient, whose caller needs no token', async () => {
    const client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['invoice.status', 'invoice.submit']);
  });
});
