import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { ConsoleLogger } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** A logger that prints nothing: expected bootstrap failures are not news. */
const silentLogger = new (class extends ConsoleLogger {
  override error(): void {}
})();

/** Builds an app from `imports`, quiet, listening on an ephemeral loopback port. */
export async function listenApp(imports: NonNullable<ModuleMetadata['imports']>): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
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
