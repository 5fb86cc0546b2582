import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MIXED_OPERATIONS, type MixedOperation, type MixedReply, type MixedRequest } from './bench-mixed.protocol.js';

const REPLY_TIMEOUT_MS = 120_000;

/** One round of the mixed workload on one server: every client's requests, timed. */
export interface MixedClientsRound {
  iterations: number;
  /** Iterations that stopped at a failed or wrong answer. */
  errors: number;
  /** From the first request sent to the last answer, all clients together. */
  elapsedMs: number;
  latenciesMs: Record<MixedOperation, number[]>;
  /** CPU of the client processes over the round, in µs. */
  clientCpuUs: number;
}

/**
 * The clients of the mixed workload, each in a process of its own (as the agents of a real
 * deployment are), so that the clients' CPU is spread over the cores the way the kernel
 * spreads it and no client waits in another one's event loop. Each holds one session per
 * server for the whole run.
 */
export class MixedClients {
  private constructor(private readonly workers: ChildProcess[]) {}

  /** Forks `count` client processes and opens their sessions on every server of `urls` (by side name). */
  static async start(count: number, urls: Record<string, URL>): Promise<MixedClients> {
    const script = fileURLToPath(new URL('./bench-mixed.worker.js', import.meta.url));
    const clients = new MixedClients(
      Array.from({ length: count }, () => fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })),
    );
    try {
      const open: MixedRequest = { cmd: 'open', urls: Object.fromEntries(Object.entries(urls).map(([side, url]) => [side, url.href])) };
      await Promise.all(clients.workers.map((worker) => ask(worker, open)));
    } catch (error) {
      clients.kill();
      throw error;
    }
    return clients;
  }

  /** Every client runs `iterations` iterations on `side` at once. */
  async round(side: string, iterations: number): Promise<MixedClientsRound> {
    const started = performance.now();
    const replies = await Promise.all(this.workers.map((worker) => ask(worker, { cmd: 'round', side, iterations })));
    const elapsedMs = performance.now() - started;
    const latenciesMs = Object.fromEntries(MIXED_OPERATIONS.map((operation) => [operation, [] as number[]])) as Record<
      MixedOperation,
      number[]
    >;
    let errors = 0;
    let clientCpuUs = 0;
    for (const reply of replies) {
      if (!('latenciesMs' in reply)) throw new Error('a mixed-workload client answered a round without timings');
      for (const operation of MIXED_OPERATIONS) latenciesMs[operation].push(...reply.latenciesMs[operation]);
      errors += reply.errors;
      clientCpuUs += reply.cpuUs;
    }
    return { iterations: iterations * this.workers.length, errors, elapsedMs, latenciesMs, clientCpuUs };
  }

  /** Ends the sessions (DELETE) and the client processes. */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.exitCode !== null) return resolve();
            worker.once('exit', () => resolve());
            worker.send({ cmd: 'close' } satisfies MixedRequest);
          }),
      ),
    );
  }

  /** Last resort when the runner aborts. */
  kill(): void {
    for (const worker of this.workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  }
}

/** Sends one request to a client process and waits for its reply (an error reply throws). */
function ask(worker: ChildProcess, request: MixedRequest): Promise<MixedReply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mixed-workload client: no reply to ${request.cmd}`)), REPLY_TIMEOUT_MS);
    const exited = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`mixed-workload client exited with ${code} during ${request.cmd}`));
    };
    worker.once('exit', exited);
    worker.once('message', (reply: MixedReply) => {
      clearTimeout(timer);
      worker.off('exit', exited);
      if ('error' in reply && reply.error) reject(new Error(`mixed-workload client: ${reply.error}`));
      else resolve(reply);
    });
    worker.send(request);
  });
}
