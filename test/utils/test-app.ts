import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** Builds an app from `imports`, quiet, listening on an ephemeral loopback port. */
export async function listenApp(imports: NonNullable<ModuleMetadata['imports']>): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** The message of the error that bootstrapping an app from `imports` fails with. */
export async function bootstrapError(imports: NonNullable<ModuleMetadata['imports']>): Promise<string> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  const error = await app.init().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  await app.close().catch(() => undefined);
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}
