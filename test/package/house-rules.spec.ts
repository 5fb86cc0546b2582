import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as root from '../../lib/index.js';

/** Every TypeScript file under `dir`, specs included. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The names a file exports by declaration (`export class X`, `export const x`, ...). */
const declaredExports = (source: string): string[] =>
  [...source.matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type|const|function|enum) (\w+)/gm)].map((match) => match[1]);

/** The shipped contract suites: one case list each, run by every store, kept whole on purpose. */
const isContractSuite = (file: string): boolean => /^lib\/testing\/.*\.contract\.ts$/.test(file);

describe('the shape of the library', () => {
  const files = sourcesUnder('lib');

  it('has no file over 450 lines, the shipped contract suites aside', () => {
    const long = files
      .filter((file) => !isContractSuite(file))
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 450);
    expect(long).toEqual([]);
  });

  it('carries no compatibility layer: at most 5 @deprecated tags', () => {
    const tags = files.reduce((count, file) => count + (readFileSync(file, 'utf8').match(/@deprecated/g)?.length ?? 0), 0);
    expect(tags).toBeLessThanOrEqual(5);
  });

  it('names a file fsm-* only when it holds an Fsm name (the state store and its tables)', () => {
    const misnamed = files
      .filter((file) => /\/fsm-[^/]*\.ts$/.test(file) && !file.endsWith('.spec.ts'))
      .filter((file) => !declaredExports(readFileSync(file, 'utf8')).some((name) => /Fsm/.test(name)));
    expect(misnamed).toEqual([]);
  });

  it('exports at most 36 runtime values from the root, none of them a registry, a bus or a metadata key', () => {
    const values = Object.keys(root);
    expect(values.length).toBeLessThanOrEqual(36);
    expect(values.filter((name) => /Registry|Bus$|_METADATA$|META_KEY$/.test(name))).toEqual([]);
  });
});
