import { McpAuthUnavailableError } from './auth-unavailable.error.js';
import { loadJose, type JoseModule } from './jose.loader.js';

describe('loadJose', () => {
  it('loads the installed jose', async () => {
    expect(typeof (await loadJose()).jwtVerify).toBe('function');
  });

  it('says to install jose when it is absent', async () => {
    const absent = Object.assign(new Error("Cannot find package 'jose' imported from /app/dist/auth/jose.loader.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadJose(() => Promise.reject(absent))).rejects.toThrow(
      'McpModule: auth.jwt verifies tokens with the optional peer "jose", which is not installed: npm install jose',
    );
  });

  it('rethrows a broken install as it is', async () => {
    const broken = Object.assign(new Error("Cannot find module '/app/node_modules/jose/dist/webapi/index.js'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadJose(() => Promise.reject(broken) as Promise<JoseModule>)).rejects.toBe(broken);
  });

  it.each([
    ['ERR_REQUIRE_ESM', 'Must use import to load ES Module: /app/node_modules/jose/dist/webapi/index.js'],
    ['ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG', 'A dynamic import callback was invoked without --experimental-vm-modules'],
  ])('says the runtime cannot load it (%s: Jest in CommonJS mode) as verification unavailable', async (code, message) => {
    const unloadable = Object.assign(new Error(message), { code });
    const failure = await loadJose(() => Promise.reject(unloadable)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpAuthUnavailableError);
    expect((failure as Error).message).toBe(
      `McpModule: auth.jwt verifies tokens with "jose", an ES module this runtime could not load (${message}); requests with a bearer token get HTTP 503 until it can. Under Jest in CommonJS mode, run Jest with ES modules, or test tools through createMcpTestClient (docs/testing.md).`,
    );
  });
});
