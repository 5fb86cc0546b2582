import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { quickStartFiles } from '../package/readme.js';
import { typeErrors, type Reported } from './type-check.js';
import { tsc7Errors } from './tsc7.js';

const ROOT = process.cwd();
const FIXTURE = resolve(ROOT, 'test/types/typed-workflows.fixture.ts');
const DIRECTIVE = '// @ts-expect-error -- ';

/** What each `@ts-expect-error` of `source` names: the line it silences and the message expected there. */
function expectedErrors(source: string): Reported[] {
  return source.split('\n').flatMap((text, index) => {
    const at = text.indexOf(DIRECTIVE);
    return at < 0
      ? []
      : [
          {
            line: index + 2,
            message: text
              .slice(at + DIRECTIVE.length)
              .split(': ')
              .slice(1)
              .join(': '),
          },
        ];
  });
}

/** Each expected error is reported on its line, and nothing else is reported. */
function expectExactly(reported: Reported[], expected: Reported[]): void {
  for (const { line, message } of expected) {
    expect({
      line,
      messages: reported
        .filter((error) => error.line === line)
        .map((error) => error.message)
        .join('\n'),
    }).toEqual({
      line,
      messages: expect.stringContaining(message),
    });
  }
  expect(reported.filter((error) => !expected.some(({ line }) => line === error.line))).toEqual([]);
}

describe('typed workflows (the compiler checks what users write)', () => {
  const source = readFileSync(FIXTURE, 'utf8');
  const expected = expectedErrors(source);
  // The directives become plain comments, so the compiler reports what they silenced.
  const unsilenced = source.replaceAll('@ts-expect-error', 'expect-error');

  it('reports exactly the error each @ts-expect-error of the fixture names, on its line, and no other (TypeScript 6)', () => {
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expectExactly(typeErrors({ [FIXTURE]: unsilenced })[FIXTURE] ?? [], expected);
  });

  it('reports the same errors under TypeScript 7 (the native compiler)', async () => {
    const file = 'typed-workflows.fixture.ts';
    const errors = await tsc7Errors({ [file]: unsilenced.replaceAll("from '../../lib/index.js'", `from '${join(ROOT, 'lib/index.js')}'`) });
    expect(Object.keys(errors).filter((name) => name !== file)).toEqual([]);
    expectExactly(errors[file] ?? [], expected);
  }, 60_000);

  describe("the README's Quick start", () => {
    const dir = resolve(ROOT, 'test/types/quick-start');
    const entry = join(ROOT, 'lib/index.js');
    /** The Quick start's files, importing this repository's sources as `nestjs-mcp-fsm`. */
    const quickStart = (edit: (file: string, text: string) => string = (_file, text) => text): Record<string, string> =>
      Object.fromEntries(
        Object.entries(quickStartFiles()).map(([file, text]) => [
          join(dir, file),
          edit(file, text.replaceAll("from 'nestjs-mcp-fsm'", `from '${entry}'`)),
        ]),
      );

    it('has the files of an app', () => {
      expect(Object.keys(quickStartFiles()).sort()).toEqual([
        'app.module.ts',
        'invoice-short.tools.ts',
        'invoice.machine.ts',
        'invoice.tools.ts',
        'main.ts',
      ]);
    });

    it('compiles as it stands', () => {
      expect(typeErrors(quickStart())).toEqual({});
    });

    /** Typos in the typed form's state and event names, each with the error that must name it. */
    const typos: Array<[string, string, string]> = [
      [
        "invoiceMachine, 'approved', 'DISCHARGE'",
        "invoiceMachine, 'aproved', 'DISCHARGE'",
        `Argument of type '"aproved"' is not assignable`,
      ],
      ["invoiceMachine, 'review', 'APPROVE'", "invoiceMachine, 'review', 'APROVE'", `Argument of type '"APROVE"' is not assignable`],
      [
        "invoiceMachine, 'draft', 'SUBMIT'",
        "invoiceMachine, 'draft', 'APPROVE'",
        `Argument of type '"APPROVE"' is not assignable to parameter of type '"SUBMIT"'`,
      ],
    ];
    const withTypos = (file: string, text: string): string =>
      file === 'invoice.tools.ts' ? typos.reduce((edited, [right, wrong]) => edited.replace(right, wrong), text) : text;

    /** Each typo's error, on the line of its decorator, naming the bad name and not the machine. */
    const expectTypoErrors = (reported: Reported[] | undefined, text: string) => {
      expect(reported).toHaveLength(typos.length);
      for (const [, wrong, message] of typos) {
        const line = text.split('\n').findIndex((row) => row.includes(wrong)) + 1;
        expect(reported!.filter((error) => error.line === line).map((error) => error.message)).toEqual([expect.stringContaining(message)]);
      }
      expect(reported!.map((error) => error.message).join('\n')).not.toContain('McpMachine<');
    };

    it('fails tsc (TypeScript 6) with a typo in a state, in an event, or with an event the state does not accept, naming it', () => {
      expect(typos.every(([right]) => quickStartFiles()['invoice.tools.ts'].includes(right))).toBe(true);
      const tools = join(dir, 'invoice.tools.ts');
      const files = quickStart(withTypos);
      const errors = typeErrors(files);
      expect(Object.keys(errors)).toEqual([tools]);
      expectTypoErrors(errors[tools], files[tools]);
    });

    it('fails tsc (TypeScript 7) with the same errors, naming the bad state or event', async () => {
      const files = Object.fromEntries(
        Object.entries(quickStartFiles()).map(([file, text]) => [
          file,
          withTypos(file, text.replaceAll("from 'nestjs-mcp-fsm'", `from '${entry}'`)),
        ]),
      );
      const errors = await tsc7Errors(files);
      expect(Object.keys(errors)).toEqual(['invoice.tools.ts']);
      expectTypoErrors(errors['invoice.tools.ts'], files['invoice.tools.ts']);
    }, 60_000);

    it('compiles as it stands under TypeScript 7', async () => {
      const files = Object.fromEntries(
        Object.entries(quickStartFiles()).map(([file, text]) => [file, text.replaceAll("from 'nestjs-mcp-fsm'", `from '${entry}'`)]),
      );
      expect(await tsc7Errors(files)).toEqual({});
    }, 60_000);
  });
});
