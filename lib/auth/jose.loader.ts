import { isPeerMissing } from '../peers/optional-peer.loader.js';
import { McpAuthUnavailableError } from './auth-unavailable.error.js';
import * as messages from './auth.messages.js';

/** The `jose` module (an optional peer), as `import('jose')` resolves it. */
export type JoseModule = typeof import('jose');

/**
 * What Node and Jest say when an ES module (jose is one) cannot be loaded where it is asked
 * for: `require` of it under Jest in CommonJS mode, `import()` under a vm without
 * `--experimental-vm-modules`, `require` of a module graph with top-level await.
 */
const ESM_UNLOADABLE_CODES = new Set([
  'ERR_REQUIRE_ESM',
  'ERR_REQUIRE_ASYNC_MODULE',
  'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING',
  'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG',
]);

/**
 * Imports the optional `jose` peer, which `auth.jwt` verifies tokens with.
 *
 * @param importer how to import it; tests pass one that fails.
 * @throws an error saying to install `jose` when it is absent; an `McpAuthUnavailableError`
 *   when this runtime cannot load it (an ES module under Jest in CommonJS mode); any other
 *   failure as it is.
 */
export async function loadJose(importer: () => Promise<JoseModule> = () => import('jose')): Promise<JoseModule> {
  try {
    return await importer();
  } catch (error) {
    if (isPeerMissing(error, ['jose'])) {
      throw new Error(messages.joseMissing(), { cause: error });
    }
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && ESM_UNLOADABLE_CODES.has(code)) {
      throw new McpAuthUnavailableError(messages.joseUnloadable(typeof message === 'string' ? message : code), { cause: error });
    }
    throw error;
  }
}
