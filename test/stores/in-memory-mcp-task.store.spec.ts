import { InMemoryMcpTaskStore } from '../../lib/stores/in-memory-mcp-task.store.js';
import { describeMcpTaskStoreContract } from '../../lib/testing.js';

describeMcpTaskStoreContract('InMemoryMcpTaskStore', async () => {
  const store = new InMemoryMcpTaskStore();
  return { store, peer: store, cleanup: async () => undefined };
});
