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

/** A class name as a file name: kebab-case, `TypeOrm` and `XState` one word each (`TypeOrmFsmTransaction` → `typeorm-fsm-transaction`). */
const kebab = (name: string): string =>
  name
    .replace('TypeOrm', 'Typeorm')
    .replace('XState', 'Xstate')
    .replace(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/g, '-')
    .toLowerCase();

/** The file names docs/architecture.md#names allows a class: its kebab-case name, the `Mcp` or `Workflow` prefix left out or not. */
const fileNamesOf = (name: string): string[] => {
  const whole = kebab(name);
  return [whole, ...['mcp-', 'workflow-'].filter((prefix) => whole.startsWith(prefix)).map((prefix) => whole.slice(prefix.length))];
};

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

  it('names every file that exports a class for one of its classes (docs/architecture.md#names), migrations aside', () => {
    const misnamed = files
      .filter((file) => !file.endsWith('.spec.ts') && !/\.migrations?\.ts$/.test(file))
      .map((file) => ({
        file,
        classes: [...readFileSync(file, 'utf8').matchAll(/^export (?:abstract )?class (\w+)/gm)].map((match) => match[1]),
      }))
      .filter(({ classes }) => classes.length > 0)
      .filter(({ file, classes }) => {
        const name = file.replace(/^.*\//, '').replace(/\.ts$/, '');
        if (name.endsWith('.errors')) return !classes.every((each) => each.endsWith('Error'));
        return !classes.some((each) => fileNamesOf(each).includes(name.replace(/\./g, '-')));
      });
    expect(misnamed).toEqual([]);
  });

  it("names the store's interfaces Fsm… (the state store) or McpSession… / McpTask… (their own stores)", () => {
    const interfaces = files
      .filter((file) => file.startsWith('lib/stores/') && !file.endsWith('.spec.ts'))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/^export interface (\w+(?:Store|Log|Reader|Transaction))\b/gm)].map((match) => match[1]),
      );
    expect(interfaces.length).toBeGreaterThan(5);
    expect(interfaces.filter((name) => !/^(Atomic|Transactional)?Fsm|^Mcp(Session|Task)/.test(name))).toEqual([]);
  });

  it('exports at most 36 runtime values from the root, none of them a registry, a bus or a metadata key', () => {
    const values = Object.keys(root);
    expect(values.length).toBeLessThanOrEqual(36);
    expect(values.filter((name) => /Registry|Bus$|_METADATA$|META_KEY$/.test(name))).toEqual([]);
  });
});
