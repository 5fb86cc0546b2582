import { spawn, type ChildProcess } from 'node:child_process';
import { totalCpuUs } from './bench.process-cpu.js';

const READY_TIMEOUT_MS = 30_000;
/** What a server's log keeps for an error message: its last characters. */
const LOG_TAIL = 8_000;

/**
 * A server of the end-to-end rows started as a user starts it: `node <script>` in a process of
 * its own, without IPC (the sample's `main.js`, as `npm run sample` runs it), ready once it
 * prints `MCP endpoint: <url>` on stderr. Its CPU is read from `/proc`.
 */
export class BenchServerProcess {
  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    readonly url: URL,
    private readonly log: () => string,
  ) {}

  /** Starts `node <script>` with `env` added to (or, for `undefined` values, taken from) this process's environment. */
  static async start(label: string, script: string, env: Record<string, string | undefined>): Promise<BenchServerProcess> {
    const merged = { ...process.env, ...env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
    const child = spawn(process.execPath, [script], { env: merged, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const url = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${label}: not ready in ${READY_TIMEOUT_MS} ms:\n${log}`)), READY_TIMEOUT_MS);
      child.stderr!.on('data', (chunk: Buffer) => {
        log = (log + chunk.toString()).slice(-LOG_TAIL);
        const found = /MCP endpoint: (http:\/\/\S+)/.exec(log);
        if (found) {
          clearTimeout(timer);
          resolve(new URL(found[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${label}: exited with ${code}:\n${log}`));
      });
    }).catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
    return new BenchServerProcess(label, child, url, () => log);
  }

  /** CPU time (all threads) the server has used so far, in µs. */
  cpuUs(): number {
    return totalCpuUs(this.child.pid!);
  }

  /** What it printed last, for an error message. */
  stderr(): string {
    return this.log();
  }

  /** Stops it like Ctrl-C (its shutdown hooks run), killed if it has not exited within 10 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  /** Last resort when the runner aborts. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
