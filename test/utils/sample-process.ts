import { spawn, type ChildProcess } from 'node:child_process';
import { basename, join } from 'node:path';
import { connectClient, type TestClient } from './http-client.js';
import { ensureSampleBuilt } from './sample-build.js';

/** Entry point of the built sample (`ensureSampleBuilt` compiles it). */
export const SAMPLE_MAIN = join(process.cwd(), '.sample-dist', 'sample', 'main.js');

/** A sample server started as a child process, as a user would start it. */
export interface SampleProcess {
  child: ChildProcess;
  url: URL;
  stderr: () => string;
  /** Stops it like Ctrl-C, or kills it outright (`SIGKILL`, a crash). */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/** Starts the sample on an ephemeral port with `env` and waits for its endpoint line. */
export function startSample(env: Record<string, string>): Promise<SampleProcess> {
  return startServerProcess(SAMPLE_MAIN, env);
}

/** Starts `node <script>` (a server on the built sample's library that prints `MCP endpoint: <url>` on stderr) with `env` and waits for its endpoint line. */
export async function startServerProcess(script: string, env: Record<string, string>): Promise<SampleProcess> {
  await ensureSampleBuilt();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: '0', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${basename(script)} did not start:\n${log}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /MCP endpoint: (http:\/\/\S+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${basename(script)} exited with ${code}:\n${log}`));
    });
  });
  return {
    child,
    url,
    stderr: () => log,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        await exited;
      }
    },
  };
}

/** Samples one test starts and the clients it connects to them, to stop and close together. */
export class SampleGroup {
  private readonly samples: SampleProcess[] = [];
  private readonly clients: TestClient[] = [];

  /** Starts a sample with `env` (see {@link startSample}). */
  async start(env: Record<string, string>): Promise<SampleProcess> {
    const sample = await startSample(env);
    this.samples.push(sample);
    return sample;
  }

  /** Connects a new client to `sample`. */
  async connect(sample: SampleProcess): Promise<TestClient> {
    const client = await connectClient(sample.url);
    this.clients.push(client);
    return client;
  }

  /** Closes the clients (one whose sample is gone already may fail to) and stops the samples. */
  async stop(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(this.samples.map((sample) => sample.stop()));
  }
}

/** What the sample's `payment.status` answers, in the parts the tests read. */
export type SamplePaymentStatus = {
  state: string;
  refundable: number;
  ledger: { kind: string; amount: number }[];
};

/** The sample's `payment.status` of `paymentId`, asked through `agent`. */
export async function paymentStatus(agent: TestClient, paymentId: string): Promise<SamplePaymentStatus> {
  return (await agent.call('payment.status', { paymentId })).structuredContent as SamplePaymentStatus;
}
