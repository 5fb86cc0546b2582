/**
 * `nestjs-mcp-fsm/testing`: what your tests use. `createMcpTestClient(app, options?)` connects
 * an official SDK `Client` to your app in memory (docs/testing.md); the contract suites prove a
 * store of your own in Jest (the shipped stores run the same ones): each `describe…Contract`
 * call declares the cases. `MCP_STATE_META_KEY` and `MCP_ERROR_META_KEY` name the `_meta` entries of a
 * tool result that a test reads (the state after a call, the refusal of one); `MCP_IDEMPOTENCY_KEY_META_KEY`
 * the `_meta` entry of a `tools/call` that carries its idempotency key.
 *
 * @example
 * import { createMcpTestClient, describeFsmStateStoreContract } from 'nestjs-mcp-fsm/testing';
 *
 * const client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
 *
 * describeFsmStateStoreContract('MyStore', async () => {
 *   const store = new MyStore(await connect());
 *   return { store, cleanup: () => store.close() };
 * });
 */
export * from './testing/mcp-test-client.js';
export * from './testing/fsm-state-store.contract.js';
export * from './testing/mcp-session-store.contract.js';
export * from './testing/mcp-task-store.contract.js';
export * from './testing/fsm-attempt-log.contract.js';
export * from './testing/fsm-receipt-log.contract.js';
export { MCP_ERROR_META_KEY, MCP_IDEMPOTENCY_KEY_META_KEY, MCP_STATE_META_KEY } from './mcp.constants.js';
