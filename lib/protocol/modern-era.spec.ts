import { loadModernSdk, type ModernSdk } from './modern-era.js';

const failing = (error: Error) => () => Promise.reject(error) as Promise<ModernSdk>;

describe('loadModernSdk', () => {
  it('loads the installed SDK v2 server packages', async () => {
    const sdk = await loadModernSdk();
    expect(typeof sdk?.server.createMcpHandler).toBe('function');
    expect(typeof sdk?.node.toNodeHandler).toBe('function');
  });

  it.each([
    [
      'Node ESM',
      'ERR_MODULE_NOT_FOUND',
      "Cannot find package '@modelcontextprotocol/server' imported from /app/dist/esm/protocol/modern-era.js",
    ],
    [
      'require',
      'MODULE_NOT_FOUND',
      "Cannot find module '@modelcontextprotocol/server'\nRequire stack:\n- /app/dist/cjs/protocol/modern-era.js",
    ],
    [
      "Jest's resolver",
      'MODULE_NOT_FOUND',
      "Cannot find module '@modelcontextprotocol/node' from 'node_modules/nestjs-mcp-fsm/dist/cjs/protocol/modern-era.js'",
    ],
  ])('answers undefined when a package is not installed (%s: %s)', async (_runtime, code, message) => {
    await expect(loadModernSdk(failing(Object.assign(new Error(message), { code })))).resolves.toBeUndefined();
  });

  it('rethrows a broken install (a file missing inside an installed package) as it is', async () => {
    const broken = Object.assign(new Error("Cannot find module '/app/node_modules/@modelcontextprotocol/server/dist/index.cjs'"), {
      code: 'MODULE_NOT_FOUND',
    });
    await expect(loadModernSdk(failing(broken))).rejects.toBe(broken);
  });

  it('rethrows a package that is installed but cannot be loaded as it is', async () => {
    const unloadable = new SyntaxError("Unexpected token 'export'");
    await expect(loadModernSdk(failing(unloadable))).rejects.toBe(unloadable);
  });
});
