/**
 * Whether `error` says one of `packages` is not installed: Node's ESM loader says
 * ERR_MODULE_NOT_FOUND, `require` and Jest's resolver MODULE_NOT_FOUND. Only the bare package
 * name counts: a file missing inside an installed package is named by its path
 * ('…/node_modules/xstate/dist/…') and means a broken install, not an absent one.
 */
export function isPeerMissing(error: unknown, packages: readonly string[]): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    packages.some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`))
  );
}

/**
 * Imports an optional peer with `importer`.
 *
 * @returns the module, or `undefined` when one of `packages` is not installed. Any other
 *   failure (a broken install, an error inside the package) is rethrown.
 */
export async function importOptionalPeer<T>(packages: readonly string[], importer: () => Promise<T>): Promise<T | undefined> {
  try {
    return await importer();
  } catch (error) {
    if (isPeerMissing(error, packages)) {
      return undefined;
    }
    throw error;
  }
}
