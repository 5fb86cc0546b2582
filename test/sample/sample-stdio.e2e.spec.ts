import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../utils/http-client.js';
import { SAMPLE_MAIN } from '../utils/sample-process.js';
import { ensureSampleBuilt } from '../utils/sample-build.js';

// The stdio servers below run the built sample's library.
beforeAll(ensureSampleBuilt, 300_000);
describe('the sample over stdio', () => {
  let dir: string;

  /** A stdio client of the sample; with `answers`, it declares elicitation and its user gives these answers in turn. */
  const open = async (answers?: ElicitResult[]) => {
    const client = new Client({ name: 'stdio-e2e', version: '1.0.0' }, { capabilities: answers ? { elicitation: {} } : {} });
    const asked: ElicitRequest['params'][] = [];
    if (answers) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params);
        return answers.shift() ?? { action: 'cancel' };
      });
    }
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
    return { client, asked, changes: () => changes };
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

  it('asks the person on the stdio stream before discharging: no capability is refused, a no keeps it approved, a yes discharges', async () => {
    const silent = await open();
    try {
      await silent.client.callTool({ name: 'invoice.submit', arguments: {} });
      await silent.client.callTool({ name: 'invoice.approve', arguments: {} });
      const refused = (await silent.client.callTool({ name: 'invoice.discharge', arguments: {} })) as CallToolResult;
      expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'CONFIRMATION_REQUIRED', state: 'approved' });
    } finally {
      await silent.client.close();
    }
    const person = await open([{ action: 'decline' }, { action: 'accept', content: {} }]);
    try {
      const declined = (await person.client.callTool({ name: 'invoice.discharge', arguments: {} })) as CallToolResult;
      expect(declined._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'DECLINED', state: 'approved' });
      expect(await names(person.client)).toContain('invoice.discharge');
      const discharged = (await person.client.callTool({ name: 'invoice.discharge', arguments: {} })) as CallToolResult;
      expect(discharged._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'discharged' });
      expect(person.asked.map((question) => question.message)).toEqual([
        'Discharge invoice INV-local? It is paid out and cannot be undone.',
        'Discharge invoice INV-local? It is paid out and cannot be undone.',
      ]);
    } finally {
      await person.client.close();
    }
  });
});
