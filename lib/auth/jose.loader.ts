import * as messages from './auth.messages.js';

/** The `jose` module (an optional peer), as `import('jose')` resolves it. */
export type JoseModule = typeof import('jose');

/**
 * Imports the optional `jose` peer, which `auth.jwt` verifies tokens with.
 *
 * @param importer how to import it; tests pass one that fails.
 * @throws an error saying to install `jose` when it is absent; any other failure as it is.
 */
export async function loadJose(importer: () => Promise<JoseModule> = () => import('jose')): Promise<JoseModule> {
  try {
    return await importer();
  } catch (error) {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    // Only the bare package name counts: a file missing inside an installed jose is a broken install.
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && /['"]jose['"]/.test(message)) {
      throw new Error(messages.joseMissing(), { cause: error });
    }
    throw error;
  }
}
