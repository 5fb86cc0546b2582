import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Every library source file (specs and fixtures left out), with the library files it imports, type imports included. */
function libraryImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/(?<!\.spec|\.fixture)\.ts$/.test(entry.name)) {
        const source = readFileSync(path, 'utf8');
        const imports = [...source.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)].map((match) =>
          relative('.', resolve(dirname(path), match[1].replace(/\.js$/, '.ts'))),
        );
        graph.set(relative('.', path), imports);
      }
    }
  };
  visit('lib');
  return graph;
}

/** The import cycles of `graph`, each as the files around it. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[][] = [];
  const walk = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), file, next]);
      else if (!state.has(next)) walk(next, [...path, file]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) walk(file, []);
  return cycles;
}

/** The top-level folder of a library file (`lib/stores/typeorm/x.ts` → `stores`), or `undefined` for a root file. */
const folderOf = (file: string): string | undefined => file.split('/').slice(1, -1)[0];

/** The top folders of lib/ each library file of `graph` is in, with the other top folders its files import (root files left out). */
function folderImports(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    for (const to of imports.map(folderOf)) {
      if (from !== undefined && to !== undefined && to !== from) folders.set(from, (folders.get(from) ?? new Set()).add(to));
    }
  }
  return new Map([...folders].map(([from, targets]) => [from, [...targets].sort()]));
}

describe('the library import graph', () => {
  const graph = libraryImports();

  it('resolves every relative import to a library file', () => {
    const missing = [...graph].flatMap(([file, imports]) => imports.filter((target) => !graph.has(target)).map((t) => `${file} → ${t}`));
    expect(missing).toEqual([]);
  });

  it('has no import cycle, type imports included', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('keeps the engines and the leaves from importing the layers above them', () => {
    const leaves: Record<string, string[]> = {
      machines: ['peers'],
      peers: [],
      access: [],
      'client-input': [],
      checks: [],
      server: [],
      stores: ['client-input', 'checks'],
      results: ['client-input', 'registry', 'decorators', 'machines'],
    };
    const upward = [...graph].flatMap(([file, imports]) => {
      const allowed = leaves[folderOf(file) ?? ''];
      if (!allowed) return [];
      return imports
        .map((target) => folderOf(target))
        .filter((folder) => folder !== folderOf(file) && !allowed.includes(folder ?? ''))
        .map((folder) => `${file} → ${folder ?? 'lib root'}`);
    });
    expect(upward).toEqual([]);
  });

  it('has no two top folders of lib/ that import each other, type imports included', () => {
    const folders = folderImports(graph);
    const mutual = [...folders].flatMap(([from, targets]) =>
      targets.filter((to) => from < to && folders.get(to)?.includes(from)).map((to) => `${from} ↔ ${to}`),
    );
    expect(mutual).toEqual([]);
  });

  it('keeps every feature from importing options/ (options/ only composes and resolves what the features hold)', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      folderOf(file) !== undefined && folderOf(file) !== 'options'
        ? imports.filter((target) => folderOf(target) === 'options').map((target) => `${file} → ${target}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('keeps the top folders of lib/ one way: no cycle through several folders either', () => {
    expect(cyclesOf(folderImports(graph))).toEqual([]);
  });
});
