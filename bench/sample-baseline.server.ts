import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SampleBaselineDatabase } from './sample-baseline.database.js';
import { registerInvoiceTools } from './sample-baseline.invoices.js';
import { registerPaymentTools } from './sample-baseline.payments.js';
import { serveSdkSessions, type SdkHttpServer } from './sdk-http.server.js';

/**
 * The hand-written durable baseline of the end-to-end rows: the sample's tools (the invoice
 * and payment workflows, with the same names, descriptions and schemas) written by a
 * competent user on the bare SDK, one `McpServer` per session over stateful Streamable HTTP,
 * each workflow gated by hand and written through to one SQLite file
 * (`SampleBaselineDatabase`: WAL, `synchronous = NORMAL`, one transaction per transition).
 * Sessions live in the process, as the SDK's own examples keep them.
 */
export async function startSampleBaselineServer(): Promise<SdkHttpServer> {
  const database = new SampleBaselineDatabase(join(tmpdir(), `nestjs-mcp-fsm-bench-hand-${process.pid}.sqlite`));
  const server = await serveSdkSessions((sessionId) => {
    const session = new McpServer({ name: 'sample-baseline', version: '1.0.0' });
    registerInvoiceTools(session, sessionId, database);
    registerPaymentTools(session, sessionId, database);
    return session;
  });
  return {
    ...server,
    close: async () => {
      await server.close();
      database.close();
    },
  };
}
