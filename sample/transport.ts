/** How the sample serves MCP, from `MCP_TRANSPORT`. */
export type SampleTransport = 'http' | 'stateless' | 'stdio';

/**
 * `MCP_TRANSPORT=stdio` → stdio only; `stateless` → stateless Streamable HTTP; anything else
 * (or unset) → stateful Streamable HTTP.
 */
export function sampleTransport(env: NodeJS.ProcessEnv = process.env): SampleTransport {
  const value = env.MCP_TRANSPORT?.trim().toLowerCase();
  return value === 'stdio' || value === 'stateless' ? value : 'http';
}
