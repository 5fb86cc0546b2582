import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchTarget, TargetReply, TargetRequest } from './bench-target.process.js';

type Command = TargetRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

const READY_TIMEOUT_MS = 30_000;
const REPLY_TIMEOUT_MS = 30_000;

/** Child processes of a run (servers and clients), killed if the run aborts. */
export type BenchProcesses = Set<{ kill(): void }>;

/** Bench targets running in one child process (with `--expose-gc`), driven over IPC. */
export class BenchTargetProcess {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: TargetReply) => void>();

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    private readonly urls: Map<BenchTarget, URL>,
  ) {
    child.on('message', (message: TargetReply) => {
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    });
  }

  /** Forks a process serving `targets` and waits until all of them listen. */
  static async start(...targets: BenchTarget[]): Promise<BenchTargetProcess> {
    const label = targets.join('+');
    const script = fileURLToPath(new URL('./bench-target.process.js', import.meta.url));
    const child = fork(script, [targets.join(',')], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const ports = await new Promise<Record<string, number>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${label}: not ready in ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      child.once('exit', (code) => reject(new Error(`${label}: exited with ${code} before listening`)));
      child.once('message', (message: { ready?: boolean; ports?: Record<string, number> }) => {
        clearTimeout(timer);
        if (message.ready && message.ports) resolve(message.ports);
      });
    }).catch((error: unknown) => {
      child.kill();
      throw error;
    });
    const urls = new Map(targets.map((target) => [target, new URL(`http://127.0.0.1:${ports[target]}/mcp`)]));
    return new BenchTargetProcess(label, child, urls);
  }

  /** The MCP endpoint of `target` (the only target when omitted). */
  url(target?: BenchTarget): URL {
    const url = target ? this.urls.get(target) : [...this.urls.values()][0];
    if (!url) throw new Error(`${this.label}: does not serve ${target}`);
    return url;
  }

  /** Sends one command and waits for its reply. */
  request(command: Command): Promise<TargetReply> {
    const id = this.nextId++;
    return new Promise<TargetReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.label}: no reply to ${command.cmd}`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error) reject(new Error(`${this.label}: ${reply.error}`));
        else resolve(reply);
      });
      this.child.send({ ...command, id });
    });
  }

  /** CPU time (user + system) the target has used so far, in microseconds. */
  async cpuUs(): Promise<number> {
    return (await this.request({ cmd: 'cpu' })).cpuUs!;
  }

  /** Heap after full GC, RSS and live sessions (of all its servers). */
  async memory(): Promise<Required<Pick<TargetReply, 'heapUsed' | 'rss' | 'gc' | 'sessions'>>> {
    const { heapUsed, rss, gc, sessions } = await this.request({ cmd: 'mem' });
    return { heapUsed: heapUsed!, rss: rss!, gc: gc!, sessions: sessions! };
  }

  /** Live sessions of all its servers, without a GC. */
  async sessions(): Promise<number> {
    return (await this.request({ cmd: 'sessions' })).sessions!;
  }

  /**
   * Waits until at most `live` sessions are live (closing is asynchronous), at most 5 s; with
   * `collect` (the default), each check runs two full GCs, so that what is left is what is reachable.
   */
  async settle(live = 0, collect = true): Promise<void> {
    const deadline = Date.now() + 5_000;
    const count = async () => (collect ? (await this.memory()).sessions : await this.sessions());
    while ((await count()) > live && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Closes the server and waits for the process to exit (killed if it does not). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    await this.request({ cmd: 'close' }).catch(() => this.child.kill());
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  /** Last resort when the runner aborts. */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
