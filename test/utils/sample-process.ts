import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** Entry point of the built sample (the jest global setup compiles it). */
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
export async function startSample(env: Record<string, string>): Promise<SampleProcess> {
  const child = spawn(process.execPath, [SAMPLE_MAIN], {
    env: { ...process.env, PORT: '0', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sample did not start:\n${log}`)), 20_000);
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
      reject(new Error(`sample exited with ${code}:\n${log}`));
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
