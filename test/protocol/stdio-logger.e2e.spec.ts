import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { stdioLogsToStdout } from '../../lib/transports/transports.messages.js';
import { eventually } from '../utils/http-client.js';
import { ensureSampleBuilt } from '../utils/sample-build.js';

/** Plain ESM on the library built to .sample-dist; its argument picks the logger. */
const SERVER = join(process.cwd(), 'test', 'fixtures', 'stdio-logger.server.mjs');

// The stdio servers below run the built sample's library.
beforeAll(ensureSampleBuilt, 300_000);
describe('stdio and the application logger', () => {
  it("warns on stderr when the app keeps Nest's default logger, which writes to stdout", async () => {
    const child = spawn(process.execPath, [SERVER, 'default'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await eventually(() => stderr.includes(stdioLogsToStdout()) || child.exitCode !== null, 20_000);
      expect(stderr).toContain(stdioLogsToStdout());
      expect(stdout).toMatch(/^\[Nest\] \d+ .*Starting Nest application/m);
    } finally {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    }
  });

  it.each(['stderr', 'buffered'])(
    'with McpStderrLogger (%s) stdout carries only the protocol, the logs reach stderr, and no warning',
    async (mode) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [SERVER, mode],
        env: { ...getDefaultEnvironment(), NO_COLOR: '1' },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'stdio-logger-e2e', version: '1.0.0' });
      const errors: Error[] = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['door.open']);
        const opened = (await client.callTool({ name: 'door.open', arguments: {} })) as CallToolResult;
        expect(opened.structuredContent).toEqual({ opened: true });
        expect((await client.listTools()).tools).toEqual([]);
      } finally {
        await client.close();
      }
      expect(errors).toEqual([]);
      expect(stderr).toMatch(/^\[Nest\] \d+ .*Starting Nest application/m);
      expect(stderr).not.toContain(stdioLogsToStdout());
    },
  );
});
