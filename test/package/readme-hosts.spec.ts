import { readFileSync } from 'node:fs';
import { hostConfigurations, HOSTS_PAGE, readmeSection, type HostEntry } from './readme.js';

/** The stdio entry every host gets: node on the built `main-stdio.ts`, with stdio selected. */
const stdioEntry = (path: string, type?: 'stdio'): HostEntry => ({
  ...(type ? { type } : {}),
  command: 'node',
  args: [path],
  env: { MCP_TRANSPORT: 'stdio' },
});

/** The Quick start's endpoint. */
const URL = 'http://127.0.0.1:3000/mcp';

describe('the host configuration entries the README links (docs/hosts.md)', () => {
  it('are valid JSON in the shape each host reads: Claude Desktop and Cursor mcpServers, VS Code servers with a type', () => {
    expect(hostConfigurations()).toEqual({
      'Claude Desktop': { mcpServers: { billing: stdioEntry('/absolute/path/to/billing/dist/main-stdio.js') } },
      'VS Code': {
        servers: {
          billing: stdioEntry('${workspaceFolder}/dist/main-stdio.js', 'stdio'),
          'billing-http': { type: 'http', url: URL },
        },
      },
      Cursor: {
        mcpServers: {
          billing: stdioEntry('/absolute/path/to/billing/dist/main-stdio.js'),
          'billing-http': { url: URL },
        },
      },
    });
  });

  it('select stdio through the variable the module reads, and reach HTTP at the Quick start URL', () => {
    expect(readmeSection('Connect a host', HOSTS_PAGE)).toContain("process.env.MCP_TRANSPORT === 'stdio' ? { http: false, stdio: true }");
    expect(readFileSync('README.md', 'utf8')).toContain(`Point any MCP client at \`${URL}\``);
  });
});
