import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ACCEPT, connectClient, postMcp, type TestClient } from '../utils/http-client.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../utils/round-robin-proxy.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

/** Versions a client may ask for that the server does not speak: a future one, and 2026-07-28 in an `initialize` (the legacy leg). */
const UNSPOKEN_VERSIONS = ['2026-03-01', '2026-07-28'];

describe('a sample process restarted under a client, its sessions in its SQLite file', () => {
  let dir: string;
  let sample: SampleProcess;
  let proxy: RoundRobinProxy;
  let clients: TestClient[];
  let database: DataSource;

  const env = () => ({ SAMPLE_DB: join(dir, 'sample.sqlite') });
  const connect = async (protocolVersion?: string, elicitation?: ElicitResult) => {
    const client = await connectClient(proxy.url, undefined, { protocolVersion, elicitation });
    clients.push(client);
    return client;
  };
  /** Stops the sample, runs `meanwhile` on its database, and starts it again behind the proxy. */
  const restart = async (meanwhile: (database: DataSource) => Promise<unknown> = async () => undefined) => {
    await sample.stop();
    database = await new DataSource({ type: 'better-sqlite3', database: env().SAMPLE_DB }).initialize();
    await meanwhile(database);
    sample = await startSample(env());
    proxy.setTargets([sample.url]);
  };
  const storedVersion = async (sessionId: string) =>
    JSON.parse((await database.query('SELECT initialize FROM mcp_session WHERE id = ?', [sessionId]))[0].initialize).protocolVersion;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-rebuild-'));
    sample = await startSample(env());
    proxy = await startRoundRobinProxy([sample.url]);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await proxy.close();
    await sample.stop();
    if (database?.isInitialized) await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(UNSPOKEN_VERSIONS)(
    'continues a session whose client asked for %s, negotiated down to 2025-11-25, on the same session id',
    async (asked) => {
      const client = await connect(asked);
      expect(client.transport.protocolVersion).toBe('2025-11-25');
      expect((await client.call('invoice.submit')).isError).toBeFalsy();
      const sessionId = client.transport.sessionId!;
      await restart();
      expect(await storedVersion(sessionId)).toBe('2025-11-25');
      expect(await client.names()).toContain('invoice.approve');
      expect((await client.call('invoice.approve')).isError).toBeFalsy();
      expect(await client.names()).toContain('invoice.discharge');
      expect(client.transport.sessionId).toBe(sessionId);
      expect(sample.stderr()).not.toMatch(/cannot be rebuilt|Internal error/);
    },
  );

  it('keeps the capabilities a client declared at initialize in a rebuilt session: the discharge asks it, and still refuses one without elicitation', async () => {
    const asking = await connect(undefined, ACCEPT);
    const silent = await connect();
    for (const client of [asking, silent]) {
      expect((await client.call('invoice.submit')).isError).toBeFalsy();
      expect((await client.call('invoice.approve')).isError).toBeFalsy();
    }
    await restart();
    const refused = await silent.call('invoice.discharge');
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'CONFIRMATION_REQUIRED', state: 'approved' });
    const discharged = await asking.call('invoice.discharge');
    expect(discharged._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'discharged' });
    expect(asking.asked).toHaveLength(1);
    expect(sample.stderr()).not.toMatch(/cannot be rebuilt|Internal error/);
  });

  it('continues a session recorded with the version its client asked for (as 0.2 stored it) with the version the server negotiates', async () => {
    const client = await connect('2026-03-01');
    expect((await client.call('invoice.submit')).isError).toBeFalsy();
    const sessionId = client.transport.sessionId!;
    await restart(async (database) => {
      const [{ initialize }] = await database.query('SELECT initialize FROM mcp_session WHERE id = ?', [sessionId]);
      const asked = JSON.stringify({ ...JSON.parse(initialize), protocolVersion: '2026-03-01' });
      await database.query('UPDATE mcp_session SET initialize = ? WHERE id = ?', [asked, sessionId]);
    });
    expect(await client.names()).toContain('invoice.approve');
    expect((await client.call('invoice.approve')).isError).toBeFalsy();
    expect(client.transport.sessionId).toBe(sessionId);
  });

  it.each([
    ['not JSON', '{"protocolVersion": "2025-', /initialize cannot be read/],
    [
      'JSON the SDK refuses',
      '{"protocolVersion": 20251125, "capabilities": "all"}',
      /initialize params are not valid \(protocolVersion: .*capabilities: /,
    ],
  ])('answers 404 for a session whose stored initialize is %s, says why once, and the client starts over', async (_, stored, reason) => {
    const client = await connect();
    expect((await client.call('invoice.submit')).isError).toBeFalsy();
    const sessionId = client.transport.sessionId!;
    await restart((database) => database.query('UPDATE mcp_session SET initialize = ? WHERE id = ?', [stored, sessionId]));

    const refused = await client.client.listTools().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(404);
    const raw = await postMcp(
      proxy.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(raw.status).toBe(404);
    expect(await raw.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });

    const warnings = sample
      .stderr()
      .split('\n')
      .filter((line) => line.includes(`Session ${sessionId.slice(0, 8)}…`));
    expect(warnings).toHaveLength(1);
    expect(sample.stderr()).not.toContain(sessionId);
    expect(warnings[0]).toMatch(/WARN/);
    expect(warnings[0]).toMatch(reason);
    expect(await database.query('SELECT id FROM mcp_session WHERE id = ?', [sessionId])).toEqual([]);

    const again = await connect();
    expect(await again.names()).toContain('invoice.submit');
    expect((await again.call('invoice.submit')).isError).toBeFalsy();
    expect(await again.names()).toContain('invoice.approve');
    expect(sample.stderr()).not.toMatch(/Internal error/);
  });
});
