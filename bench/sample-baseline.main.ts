import { startSampleBaselineServer } from './sample-baseline.server.js';

/**
 * The hand-written durable server on its own, as its user would start it: it prints its
 * endpoint as the sample does (`MCP endpoint: http://127.0.0.1:<port>/mcp`) and closes its
 * sessions and its SQLite file on SIGTERM or SIGINT.
 */
async function main(): Promise<void> {
  const server = await startSampleBaselineServer();
  process.stderr.write(`MCP endpoint: http://127.0.0.1:${server.port}/mcp\n`);
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
