import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { quickStartFiles } from '../package/readme.js';
import { typeErrors } from './type-check.js';

const ROOT = process.cwd();
const FIXTURE = resolve(ROOT, 'test/types/typed-workflows.fixture.ts');
const DIRECTIVE = '// @ts-expect-error -- ';

describe('typed workflows (the compiler checks what users write)', () => {
  it('reports exactly the error each @ts-expect-error of the fixture names, on its line, and no other', () => {
    const source = readFileSync(FIXTURE, 'utf8');
    const lines = source.split('\n');
    const expected = lines.flatMap((text, index) => {
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
    expect(expected.length).toBeGreaterThanOrEqual(10);
    // The directives become plain comments, so the compiler reports what they silenced.
    const unsilenced = source.replaceAll('@ts-expect-error', 'expect-error');
    const reported = typeErrors({ [FIXTURE]: unsilenced })[FIXTURE] ?? [];
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
  });

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
      expect(Object.keys(quickStartFiles()).sort()).toEqual(['app.module.ts', 'invoice.machine.ts', 'invoice.tools.ts', 'main.ts']);
    });

    it('compiles as it stands', () => {
      expect(typeErrors(quickStart())).toEqual({});
    });

    it('fails tsc with a typo in a state, in an event, or with an event the state does not accept', () => {
      const typos: Array<[string, string, string]> = [
        ["'approved', 'DISCHARGE'", "'aproved', 'DISCHARGE'", `Argument of type '"aproved"' is not assignable`],
        ["'review', 'APPROVE'", "'review', 'APROVE'", `Argument of type '"APROVE"' is not assignable`],
        ["'draft', 'SUBMIT'", "'draft', 'APPROVE'", `Argument of type '"APPROVE"' is not assignable to parameter of type '"SUBMIT"'`],
      ];
      const tools = join(dir, 'invoice.tools.ts');
      const errors = typeErrors(
        quickStart((file, text) =>
          file === 'invoice.tools.ts' ? typos.reduce((edited, [right, wrong]) => edited.replace(right, wrong), text) : text,
        ),
      );
      expect(Object.keys(errors)).toEqual([tools]);
      expect(errors[tools]).toHaveLength(typos.length);
      for (const [, , message] of typos) {
        expect(errors[tools].map((error) => error.message).join('\n')).toContain(message);
      }
    });
  });
});
