/**
 * What a session store's `find` throws for a record it holds but cannot read (corrupt stored
 * data). Such a session cannot be rebuilt: its client is answered HTTP 404 and starts a new
 * session, and the record is ended. Any other error of `find` is a store failure: the request
 * gets HTTP 503 and the session stays, for the client to retry.
 */
export class McpSessionRecordError extends Error {
  override readonly name = 'McpSessionRecordError';
}
