import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** An SDK v2 client pinned to MCP 2026-07-28 (no initialize, no session), sending `headers` on every request. */
export async function connectModernClient(url: URL, headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'e2e-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(url, headers ? { requestInit: { headers } } : undefined));
  return client;
}
