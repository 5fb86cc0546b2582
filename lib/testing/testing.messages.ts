/** What a test reads from `createMcpTestClient`: worded once. */

/** The app has no `McpModule`. */
export const noServer = (): string =>
  'createMcpTestClient: the app has no McpModule; pass an app (or testing module) that imports McpModule.forRoot(...).';

/** The app has several `McpModule`s and the test did not say which. */
export const serverNotNamed = (ids: readonly string[]): string =>
  `createMcpTestClient: the app has ${ids.length} MCP servers (${ids.join(', ')}); pass { server: '<serverId>' } naming one.`;

/** `options.server` names no `McpModule` of the app. */
export const unknownServer = (server: string, ids: readonly string[]): string =>
  `createMcpTestClient: the app has no MCP server "${server}" (servers: ${ids.join(', ') || 'none'}).`;
