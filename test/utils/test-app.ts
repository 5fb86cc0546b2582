import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** Builds an app from `imports`, quiet, listening on an ephemeral loopback port. */
export async function listenApp(imports: NonNullable<ModuleMetadata['imports']>): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}
