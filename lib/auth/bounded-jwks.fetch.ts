import * as messages from './auth.messages.js';

/** What `jose` hands a custom JWKS fetch (its `FetchImplementation`'s options). */
interface JwksFetchOptions {
  headers: Headers;
  method: 'GET';
  redirect: 'manual';
  signal: AbortSignal;
}

/**
 * A JWKS fetch that reads at most `maxBytes` of the response: a larger one (by its
 * Content-Length, or once that many bytes arrived) is cancelled and fails, so a JWKS endpoint
 * that answers without end cannot grow the server. `jose` then refuses verification, which the
 * verifier answers with HTTP 503 (fail closed).
 */
export function boundedJwksFetch(maxBytes: number): (url: string, options: JwksFetchOptions) => Promise<Response> {
  return async (url, options) => {
    const response = await fetch(url, options);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      throw new Error(messages.jwksTooLarge(maxBytes));
    }
    const chunks: Uint8Array[] = [];
    let read = 0;
    if (response.body) {
      const reader = response.body.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        read += next.value.byteLength;
        if (read > maxBytes) {
          await reader.cancel();
          throw new Error(messages.jwksTooLarge(maxBytes));
        }
        chunks.push(next.value);
      }
    }
    return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
