/** A POST body on the MCP path that is declared JSON and is not. */
export class McpBodyNotJsonError extends Error {}

/** A body on the MCP path larger than `transports.http.maxBodyBytes`. */
export class McpBodyTooLargeError extends Error {}
