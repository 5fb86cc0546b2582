import { importOptionalPeer, isPeerMissing } from './optional-peer.loader.js';

const failure = (code: string, message: string) => Object.assign(new Error(message), { code });
const failing = (error: unknown) => async (): Promise<never> => {
  throw error;
};

describe('isPeerMissing', () => {
  it.each([
    ['ERR_MODULE_NOT_FOUND', "Cannot find package 'pkg-b' imported from /app/dist/esm/loader.js"],
    ['MODULE_NOT_FOUND', "Cannot find module 'pkg-a'\nRequire stack:\n- /app/dist/cjs/loader.js"],
    ['MODULE_NOT_FOUND', 'Cannot find module "pkg-a" from \'node_modules/app/dist/cjs/loader.js\''],
  ])('says a package of the list is absent (%s: %s)', (code, message) => {
    expect(isPeerMissing(failure(code, message), ['pkg-a', 'pkg-b'])).toBe(true);
  });

  it('takes a file missing inside an installed package, another package, or another failure for something else', () => {
    expect(isPeerMissing(failure('ERR_MODULE_NOT_FOUND', "Cannot find module '/app/node_modules/pkg-a/dist/x.js'"), ['pkg-a'])).toBe(false);
    expect(isPeerMissing(failure('ERR_MODULE_NOT_FOUND', "Cannot find package 'pkg-c'"), ['pkg-a'])).toBe(false);
    expect(isPeerMissing(failure('ERR_REQUIRE_ESM', "Cannot load 'pkg-a'"), ['pkg-a'])).toBe(false);
    expect(isPeerMissing(undefined, ['pkg-a'])).toBe(false);
  });
});

describe('importOptionalPeer', () => {
  it('answers the module, or undefined when the package is absent', async () => {
    await expect(importOptionalPeer(['pkg-a'], async () => 'module')).resolves.toBe('module');
    await expect(
      importOptionalPeer(['pkg-a'], failing(failure('MODULE_NOT_FOUND', "Cannot find module 'pkg-a'"))),
    ).resolves.toBeUndefined();
  });

  it('rethrows any other failure as it is', async () => {
    const broken = new SyntaxError("Unexpected token 'export'");
    await expect(importOptionalPeer(['pkg-a'], failing(broken))).rejects.toBe(broken);
  });
});
