/** What a developer reads about the module options at startup: worded once. */

/** Startup warning: options given under their deprecated names, each with its new place. */
export const deprecatedOptions = (moved: readonly (readonly [string, string])[]): string =>
  `McpModule: these options have moved and their old names will go in a later release: ${moved.map(([from, to]) => `${from} → ${to}`).join(', ')}.`;
