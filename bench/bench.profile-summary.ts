/** A V8 CPU profile as the inspector's `Profiler.stop` returns it (the `.cpuprofile` format). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a profile's time went, in ms. */
export interface ProfileSummary {
  wallMs: number;
  idleMs: number;
  gcMs: number;
  /** Busy (not idle) time inside the given request windows. */
  busyInRequestsMs: number;
  /** Self time by package or area (`lib`, `sample`, a package of node_modules, a Node module, V8 builtins), largest first. */
  areas: [string, number][];
  /** Time with the area anywhere on the stack (inclusive), largest first. */
  onStack: [string, number][];
  /** Self time by function, largest first. */
  functions: [string, number][];
}

const SPECIAL = new Set(['(idle)', '(garbage collector)', '(program)', '(root)']);

/** The area a frame's script belongs to: a package, the library, the sample, the bench, a Node module, or V8. */
function areaOf(url: string, functionName: string): string {
  if (SPECIAL.has(functionName) && !url) return functionName;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\.sample-dist\/(lib|sample|bench)\//.exec(url);
  if (own) return own[1] === 'lib' ? 'lib (nestjs-mcp-fsm)' : own[1];
  if (url.startsWith('node:')) return url.replace(/^(node:internal\/[^/]+|node:[^/]+).*$/, '$1');
  return url ? url : '(V8 builtins, native)';
}

/**
 * Self time of each sample (the time until the next one), summed by area and by function, and
 * the busy time that fell inside `windows` (request start and finish, µs of the profile's
 * clock, in order and not overlapping: one request at a time).
 */
export function summarizeProfile(profile: CpuProfile, windows: [number, number][] = []): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  /** The areas on each node's stack, computed once per node. */
  const stackAreas = new Map<number, Set<string>>();
  const areasOnStack = (id: number): Set<string> => {
    let found = stackAreas.get(id);
    if (found) return found;
    const frame = byId.get(id)!;
    const parent = parents.get(id);
    found = new Set(parent === undefined ? [] : areasOnStack(parent));
    found.add(areaOf(frame.url, frame.functionName));
    stackAreas.set(id, found);
    return found;
  };
  const onStack = new Map<string, number>();
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  let at = profile.startTime;
  let window = 0;
  let busyInRequestsMs = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index];
    const next = profile.timeDeltas[index + 1];
    if (next === undefined) break;
    const frame = byId.get(profile.samples[index])!;
    const ms = next / 1000;
    const area = areaOf(frame.url, frame.functionName);
    add(areas, area, ms);
    if (area !== '(idle)') for (const each of areasOnStack(profile.samples[index])) add(onStack, each, ms);
    while (window < windows.length && windows[window][1] < at) window++;
    if (area !== '(idle)' && window < windows.length && windows[window][0] <= at) busyInRequestsMs += ms;
    const file = frame.url.replace(/^.*\/(node_modules|\.sample-dist)\//, '').replace(/^file:\/\//, '');
    add(functions, `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`.trim(), ms);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    idleMs: areas.get('(idle)') ?? 0,
    gcMs: areas.get('(garbage collector)') ?? 0,
    busyInRequestsMs,
    areas: sorted(areas),
    onStack: sorted(onStack).filter(([area]) => !SPECIAL.has(area)),
    functions: sorted(functions).filter(([name]) => !name.startsWith('(idle)')),
  };
}
