import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of process `pid` so far, in µs, from `/proc/<pid>/task/<tid>/schedstat` (Linux): of
 * its main thread, and of all its other threads (V8's garbage-collection helpers, libuv's
 * pool). Time spent waiting for a core counts for neither, so a loaded machine adds little.
 */
export function processCpuUs(pid: number): { main: number; other: number } {
  const time = { main: 0, other: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const us = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1000;
      if (Number(task) === pid) time.main += us;
      else time.other += us;
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return time;
}

/** All the CPU time of process `pid` so far, in µs (see {@link processCpuUs}). */
export function totalCpuUs(pid: number): number {
  const { main, other } = processCpuUs(pid);
  return main + other;
}
