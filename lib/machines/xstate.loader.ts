/** The `xstate` module (an optional peer), as `import('xstate')` resolves it. */
export type XStateModule = typeof import('xstate');

/**
 * Imports the optional `xstate` peer.
 *
 * @param importer how to import it; tests pass a fake.
 * @returns the module, or `undefined` when `xstate` is not installed. Any other failure
 *   (a broken install, an error inside xstate) is rethrown.
 */
export async function loadXState(importer: () => Promise<XStateModule> = () => import('xstate')): Promise<XStateModule | undefined> {
  try {
    return await importer();
  } catch (error) {
    if (isXStateNotFound(error)) {
      return undefined;
    }
    throw error;
  }
}

function isXStateNotFound(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // Only the bare package name counts: a file missing inside an installed xstate is named
  // by its path ('…/node_modules/xstate/dist/…') and means a broken install, not an absent one.
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && /['"]xstate['"]/.test(message);
}
