import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { typeErrors } from './type-check.js';

const ROOT = process.cwd();
const PAGE = readFileSync(join(ROOT, 'docs/auth.md'), 'utf8');
const ENTRY = join(ROOT, 'lib/index.js');

/** The text of docs/auth.md under the heading that starts with `heading`, up to the next heading of any level. */
function section(heading: string): string {
  const start = PAGE.indexOf(`\n${heading}`);
  if (start < 0) {
    throw new Error(`docs/auth.md has no heading starting "${heading}"`);
  }
  const end = PAGE.slice(start + 1).search(/\n#{2,3} /);
  return end < 0 ? PAGE.slice(start) : PAGE.slice(start, start + 1 + end);
}

/** The ```ts blocks of `text` whose first line names a file (`// app.module.ts`), by file name. */
function files(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of text.matchAll(/```ts\n(\/\/ ([\w.-]+\.ts)\b[^\n]*\n[^]*?)```/g)) {
    found[match[2]] = match[1].replaceAll("from 'nestjs-mcp-fsm'", `from '${ENTRY}'`);
  }
  return found;
}

/** Type-checks one set-up's files in a folder of their own; its errors, by file name. */
function check(name: string, setUp: Record<string, string>): Record<string, string[]> {
  const dir = resolve(ROOT, 'test/types/auth-docs', name);
  const errors = typeErrors(Object.fromEntries(Object.entries(setUp).map(([file, text]) => [join(dir, file), text])));
  return Object.fromEntries(
    Object.entries(errors).map(([file, reported]) => [file, reported.map(({ line, message }) => `${line}: ${message}`)]),
  );
}

describe('docs/auth.md: each set-up compiles as it stands', () => {
  const jwt = files(section('### 1. '));

  it('1. built-in JWT verification: the access, the tools and the module', () => {
    expect(Object.keys(jwt).sort()).toEqual(['app.module.ts', 'billing.access.ts', 'payment.tools.ts']);
    expect(check('jwt', jwt)).toEqual({});
  });

  it('2. a Passport strategy mapped with auth.fromRequest (with the tools of set-up 1)', () => {
    const passport = files(section('### 2. '));
    expect(Object.keys(passport).sort()).toEqual(['app.module.ts', 'main.ts']);
    expect(
      check('passport', { ...passport, 'payment.tools.ts': jwt['payment.tools.ts'], 'billing.access.ts': jwt['billing.access.ts'] }),
    ).toEqual({});
  });

  it('3. a verifier of your own (with the tools of set-up 1)', () => {
    const verifier = files(section('### 3. '));
    expect(Object.keys(verifier).sort()).toEqual(['app.module.ts', 'introspection.verifier.ts']);
    expect(
      check('verifier', { ...verifier, 'payment.tools.ts': jwt['payment.tools.ts'], 'billing.access.ts': jwt['billing.access.ts'] }),
    ).toEqual({});
  });

  it('your own routes: a controller checking a scope with McpAuthenticator.authorize', () => {
    const routes = files(section('## Your own routes'));
    expect(Object.keys(routes)).toEqual(['workflows.controller.ts']);
    expect(check('routes', routes)).toEqual({});
  });
});
