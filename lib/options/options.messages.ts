/** What a developer reads about the module options at startup: worded once. */

/** Startup warning: options given under their deprecated names, each with its new place. */
export const deprecatedOptions = (moved: readonly (readonly [string, string])[]): string =>
  `McpModule: these options have moved and their old names will go in a later release: ${moved.map(([from, to]) => `${from} → ${to}`).join(', ')}.`;

/** Startup error: a `telemetry.instanceDigestKey` too short to key a hash that must not be reversible. */
export const digestKeyTooShort = (length: number, minimum: number): string =>
  `McpModule: telemetry.instanceDigestKey has ${length} bytes; give at least ${minimum} (for example 32 random bytes from a secret), so workflow.instance.id cannot be traced back to a handle or session.`;

/** Startup error: `inputRequests.requestStateKey` is too short for HMAC-SHA256. */
export const requestStateKeyTooShort = (bytes: number, least: number): string =>
  `McpModule: inputRequests.requestStateKey has ${bytes} bytes; it needs at least ${least} (for example 64 hex characters from \`openssl rand -hex 32\`), the same on every replica.`;

/** Startup error: a number of `inputRequests` out of range. */
export const inputRequestOptionInvalid = (name: string, value: unknown, least: number): string =>
  `McpModule: inputRequests.${name} must be a number of at least ${least} (got ${String(value)}).`;
