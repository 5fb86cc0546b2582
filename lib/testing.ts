/**
 * `nestjs-mcp-fsm/testing`: the contract suites a store of your own runs in its jest specs
 * (the shipped stores run the same ones). Each `describe…Contract` call declares the cases.
 *
 * @example
 * import { describeWorkflowStateStoreContract } from 'nestjs-mcp-fsm/testing';
 *
 * describeWorkflowStateStoreContract('MyStore', async () => {
 *   const store = new MyStore(await connect());
 *   return { store, cleanup: () => store.close() };
 * });
 */
export * from './testing/workflow-state-store.contract.js';
export * from './testing/mcp-session-store.contract.js';
export * from './testing/workflow-attempt-log.contract.js';
