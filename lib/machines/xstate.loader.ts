import { importOptionalPeer } from '../peers/optional-peer.loader.js';

/** The `xstate` module (an optional peer), as `import('xstate')` resolves it. */
export type XStateModule = typeof import('xstate');

/**
 * Imports the optional `xstate` peer.
 *
 * @param importer how to import it; tests pass a fake.
 * @returns the module, or `undefined` when `xstate` is not installed. Any other failure
 *   (a broken install, an error inside xstate) is rethrown.
 */
export function loadXState(importer: () => Promise<XStateModule> = () => import('xstate')): Promise<XStateModule | undefined> {
  return importOptionalPeer(['xstate'], importer);
}
