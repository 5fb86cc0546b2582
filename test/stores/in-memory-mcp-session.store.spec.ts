import { InMemoryMcpSessionStore } from '../../lib/stores/in-memory-mcp-session.store.js';
import { describeMcpSessionStoreContract } from '../../lib/testing.js';

describeMcpSessionStoreContract('InMemoryMcpSessionStore', async () => {
  const store = new InMemoryMcpSessionStore();
  return { store, peer: store, cleanup: async () => undefined };
});
