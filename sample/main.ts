import 'reflect-metadata';
import type { ConsoleLogger, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpStderrLogger } from '../lib/index.js';
import { AppModule } from './app.module.js';
import { applySampleHttpLimits } from './http-limits.js';
import { startSampleTelemetry } from './telemetry.js';
import { sampleTransport } from './transport.js';

/**
 * The HTTP app on Express, or on Fastify with `HTTP_ADAPTER=fastify` (loaded only then). Both keep
 * a JSON body's raw bytes (`rawBody`): the webhook's signature is over them.
 */
async function createHttpApp(logger: ConsoleLogger): Promise<INestApplication> {
  if (process.env.HTTP_ADAPTER?.trim().toLowerCase() === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    return NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger, rawBody: true });
  }
  return NestFactory.create(AppModule, { logger, rawBody: true });
}

async function bootstrap(): Promise<void> {
  // Before the app: the module takes its tracer and meter when it starts.
  await startSampleTelemetry();
  const logger = new McpStderrLogger();
  if (sampleTransport() === 'stdio') {
    const app = await NestFactory.createApplicationContext(AppModule, { logger });
    app.enableShutdownHooks();
    // One client per process: when it goes away, close the database and exit.
    process.stdin.once('end', () => void app.close());
    return;
  }
  const app = await createHttpApp(logger);
  // On SIGTERM/SIGINT: calls in flight finish (up to SAMPLE_DRAIN_MS), then streams and the database close.
  app.enableShutdownHooks();
  applySampleHttpLimits(app.getHttpServer() as Server);
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  logger.log(`MCP endpoint: http://127.0.0.1:${port}/mcp`, 'Sample');
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
