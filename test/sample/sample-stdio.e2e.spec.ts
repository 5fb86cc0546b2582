import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../utils/http-client.js';
import { SAMPLE_MAIN } from '../utils/sample-process.js';

describe('the sample over stdio', () => {
  let dir: string;

  const open = async () => {
    const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SAMPLE_MAIN],
      env: { ...getDefaultEnvironment(), MCP_TRANSPORT: 'stdio', SAMPLE_DB: join(dir, 'stdio.sqlite') },
      stderr: 'pipe',
    });
    await client.connect(transport);
    return { client, changes: () => changes };
  };
  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-stdio-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('gates the invoice by the process attachment, notifies, and keeps it across restarts', async () => {
    const first = await open();
    expect(await names(first.client)).toContain('invoice.submit');
    await first.client.callTool({ name: 'invoice.submit', arguments: {} });
    await eventually(() => first.changes() === 1);
    expect(await names(first.client)).toEqual(expect.arrayContaining(['invoice.approve', 'invoice.reject']));
    await first.client.close();

    const second = await open();
    try {
      expect(await names(second.client)).toContain('invoice.approve');
      const refused = (await second.client.callTool({ name: 'invoice.submit', arguments: {} })) as CallToolResult;
      expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'review' });
    } finally {
      await second.client.close();
    }
  });
});
