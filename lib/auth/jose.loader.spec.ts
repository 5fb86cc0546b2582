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
});
