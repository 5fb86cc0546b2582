import { isPeerMissing } from '../peers/optional-peer.loader.js';

/** The `@opentelemetry/api` module (an optional peer), as `import('@opentelemetry/api')` resolves it. */
export type OtelApi = typeof import('@opentelemetry/api');

let loaded: OtelApi | undefined;

/**
 * Imports the optional `@opentelemetry/api` peer once; later calls answer the same module.
 *
 * @param importer how to import it; tests pass one that fails.
 * @returns the module, or `undefined` when the package is not installed. Any other failure
 *   (a broken install) is rethrown.
 */
export async function loadOtelApi(importer: () => Promise<OtelApi> = () => import('@opentelemetry/api')): Promise<OtelApi | undefined> {
  try {
    loaded ??= await importer();
    return loaded;
  } catch (error) {
    if (isPeerMissing(error, ['@opentelemetry/api'])) {
      return undefined;
    }
    throw error;
  }
}

/** The trace id of the span active now, for log lines; `undefined` without the API, or outside any sampled span. */
export function activeTraceId(): string | undefined {
  const span = loaded?.trace.getActiveSpan();
  const spanContext = span?.spanContext();
  return spanContext && loaded!.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}
