import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { conformanceModule } from './conformance.app.js';

/**
 * Serves the conformance fixture on loopback: `PORT` (default 0, an ephemeral port),
 * `MCP_TRANSPORT=stateless` for stateless HTTP (stateful otherwise), as the sample reads them.
 * Prints `MCP endpoint: <url>` on stderr once it listens.
 */
async function bootstrap(): Promise<void> {
  const stateless = process.env.MCP_TRANSPORT?.trim().toLowerCase() === 'stateless';
  const app = await NestFactory.create(conformanceModule({ stateless }), { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.stderr.write(`MCP endpoint: http://127.0.0.1:${port}/mcp\n`);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
