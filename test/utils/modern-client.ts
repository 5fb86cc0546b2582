import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** What the user of a modern client answers to every question (`elicitation/create`), and the questions it was asked. */
export interface ModernElicitation {
  answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> };
  asked?: { message: string }[];
}

/**
 * An SDK v2 client pinned to MCP 2026-07-28 (no initialize, no session), sending `headers` on
 * every request. With `elicitation`, it declares the capability and fulfils input-required
 * results that ask a question (a confirmed tool such as the sample's `invoice.discharge`).
 */
export async function connectModernClient(url: URL, headers?: Record<string, string>, elicitation?: ModernElicitation): Promise<Client> {
  const client = new Client(
    { name: 'e2e-2026', version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: {} } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitation.asked?.push(request.params as { message: string });
      return elicitation.answer;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(url, headers ? { requestInit: { headers } } : undefined));
  return client;
}
