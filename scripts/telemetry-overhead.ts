import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpModule, type McpModuleOptions } from '../lib/index.js';
import { McpServerFactory } from '../lib/protocol/mcp-server.factory.js';
import { docMachine, loopMachine } from '../bench/bench.machines.js';
import { DocTools, EchoTools, LoopTools } from '../bench/bench.tools.js';

/**
 * What telemetry costs a `tools/call` with `@opentelemetry/api` installed and no SDK
 * registered: CPU time per call through the module in-process (an SDK client over
 * InMemoryTransport, no HTTP), telemetry on (the default) against `telemetry.enabled: false`.
 * Both apps run in one process and take turns, round after round, so that the load of the
 * machine falls on both alike; the medians of the rounds are printed.
 *
 * `npx tsc -p tsconfig.sample.json && node .sample-dist/scripts/telemetry-overhead.js [rounds] [calls per round]`
 */
const ROUNDS = Number(process.argv[2] ?? 20);
const CALLS = Number(process.argv[3] ?? 1000);

type Mode = 'on' | 'off';

/** An app with the bench tools, telemetry on or off, and an SDK client connected to it in-process. */
async function connect(mode: Mode): Promise<{ client: Client; close: () => Promise<void> }> {
  const options: McpModuleOptions = {
    name: 'overhead',
    version: '1.0.0',
    machines: [loopMachine, docMachine],
    transports: { http: false },
  };
  if (mode === 'off') options.telemetry = { enabled: false };
  @Module({ imports: [McpModule.forRoot(options)], providers: [EchoTools, LoopTools, DocTools] })
  class OverheadModule {}
  const app = await NestFactory.createApplicationContext(OverheadModule, { logger: false });
  const session = app.get(McpServerFactory).createSession('stdio', undefined, { scope: 'attachment', id: `overhead-${mode}` });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  const client = new Client({ name: 'overhead', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, close: async () => (await client.close(), await app.close()) };
}

/** CPU microseconds per call of `calls` calls of `tool(i)`. */
async function perCall(client: Client, tool: (i: number) => string, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await client.callTool({ name: tool(i), arguments: {} });
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const gated = (i: number) => (i % 2 ? 'loop.flop' : 'loop.flip');
const echo = () => 'echo';

async function main(): Promise<void> {
  const apps = { on: await connect('on'), off: await connect('off') };
  const samples: Record<Mode, { gated: number[]; echo: number[] }> = { on: { gated: [], echo: [] }, off: { gated: [], echo: [] } };
  for (const mode of ['on', 'off'] as const) {
    await perCall(apps[mode].client, gated, CALLS);
    await perCall(apps[mode].client, echo, CALLS);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      samples[mode].gated.push(await perCall(apps[mode].client, gated, CALLS));
      samples[mode].echo.push(await perCall(apps[mode].client, echo, CALLS));
    }
  }
  for (const mode of ['on', 'off'] as const) {
    const { gated: g, echo: e } = samples[mode];
    process.stdout.write(
      `telemetry ${mode}: gated transition ${median(g).toFixed(1)} µs CPU per call (min ${Math.min(...g).toFixed(1)}), ` +
        `unbound tool ${median(e).toFixed(1)} µs (min ${Math.min(...e).toFixed(1)})\n`,
    );
  }
  await apps.on.close();
  await apps.off.close();
}

void main();
