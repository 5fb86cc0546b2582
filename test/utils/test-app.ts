import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { ConsoleLogger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

/** A logger that prints nothing: expected bootstrap failures are not news. */
const silentLogger = new (class extends ConsoleLogger {
  override error(): void {}
})();

/** The HTTP adapters the HTTP suites run on. */
export const HTTP_ADAPTERS = ['express', 'fastify'] as const;
export type HttpAdapterName = (typeof HTTP_ADAPTERS)[number];

/** How {@link listenApp} builds and starts the app. */
export interface ListenAppOptions {
  /** @default 'express' */
  adapter?: HttpAdapterName;
  /** @default '127.0.0.1' */
  host?: string;
  /** Called before the app starts (middleware, hooks, a global prefix). */
  configure?: (app: INestApplication) => void | Promise<void>;
}

/** Builds an app from `imports` (on Express or Fastify), quiet, listening on an ephemeral loopback port. */
export async function listenApp(
  imports: NonNullable<ModuleMetadata['imports']>,
  options: ListenAppOptions = {},
): Promise<INestApplication> {
  const app = await createApp(imports, options.adapter);
  await options.configure?.(app);
  await app.listen(0, options.host ?? '127.0.0.1');
  return app;
}

/** Builds an app from `imports` on `adapter`, quiet, not started. */
export async function createApp(
  imports: NonNullable<ModuleMetadata['imports']>,
  adapter: HttpAdapterName = 'express',
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  if (adapter === 'express') {
    return moduleRef.createNestApplication({ logger: false });
  }
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
}

/** The message of the error that bootstrapping an app from `imports` fails with. */
export async function bootstrapError(imports: NonNullable<ModuleMetadata['imports']>): Promise<string> {
  let error: unknown;
  try {
    // Providers built by factories (the machine registry) fail while the module compiles.
    const moduleRef = await Test.createTestingModule({ imports }).setLogger(silentLogger).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    error = await app.init().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await app.close().catch(() => undefined);
  } catch (thrown) {
    error = thrown;
  }
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}
