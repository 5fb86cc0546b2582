import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../sample/app.module.js';

/**
 * `npm run diagrams`: starts the sample on a scratch SQLite file, reads each workflow's
 * diagram resource over MCP, and writes them into docs/primitives.md between the
 * sample-diagrams markers. `test/sample/sample-http.e2e.spec.ts` checks that the page still
 * shows what the sample serves.
 */
const START = '<!-- sample-diagrams:start (npm run diagrams) -->';
const END = '<!-- sample-diagrams:end -->';
const MACHINES = ['invoice', 'payment'];
/** The page that shows the sample's diagrams. */
const PAGE = 'docs/primitives.md';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'docs-diagrams-'));
  process.env.SAMPLE_DB = join(dir, 'sample.sqlite');
  const app = await NestFactory.create(AppModule, { logger: false });
  const client = new Client({ name: 'docs-diagrams', version: '1.0.0' });
  try {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    const blocks: string[] = [];
    for (const machine of MACHINES) {
      const [content] = (await client.readResource({ uri: `workflow://${machine}/diagram` })).contents as { text: string }[];
      blocks.push(`\`${machine}\` (\`workflow://${machine}/diagram\`):\n\n\`\`\`mermaid\n${content.text}\`\`\``);
    }
    const page = readFileSync(PAGE, 'utf8');
    const [before, rest] = page.split(START);
    if (rest === undefined || !rest.includes(END)) {
      throw new Error(`${PAGE} has no ${START} … ${END} block`);
    }
    writeFileSync(PAGE, `${before}${START}\n\n${blocks.join('\n\n')}\n\n${END}${rest.slice(rest.indexOf(END) + END.length)}`);
    console.log(`${PAGE}: ${MACHINES.length} diagrams written`);
  } finally {
    await client.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`docs-diagrams failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
