/**
 * How long the values a client sends may be, checked where they enter (docs/deployment.md, "Limits on what clients send").
 * Each is refused with an error that names its limit, before it reaches a store.
 */

/**
 * The longest principal (the auth `clientId`) a request may carry. The TypeORM tables keep it
 * in 255-character columns, and a 2026-07-28 principal's session-keyed instance is stored
 * under `<machine>:principal:<principal>` in one too, so 128 leaves room for machine ids of up
 * to 116 characters. Longer is HTTP 403.
 */
export const MAX_PRINCIPAL_LENGTH = 128;

/** The longest `Mcp-Session-Id` looked up (the width of the session store's id column; minted ids are 36). Longer is HTTP 400. */
export const MAX_SESSION_ID_LENGTH = 64;

/**
 * The longest resource URI a `resources/read`, `resources/subscribe`, `resources/unsubscribe`
 * or `completion/complete` may name (RFC 9110 asks servers to take at least 8000 octets).
 * Longer is JSON-RPC -32602.
 */
export const MAX_URI_LENGTH = 8192;

/** How many characters of a value a client sent an error text repeats; the rest is cut (an ellipsis says so). */
export const MAX_ECHO_LENGTH = 64;

/** How many of a refused call's arguments its attempt row keeps (each cut to {@link MAX_ECHO_LENGTH}); the rest are left out. */
export const MAX_ECHOED_ARGUMENTS = 16;

/** The longest refusal message an attempt row keeps; a longer one is cut (an ellipsis says so). */
export const MAX_ATTEMPT_MESSAGE_LENGTH = 1024;
