import { readFileSync } from 'node:fs';

const PAGE = 'docs/testing.md';

/** The page's code blocks, each with its language and text. */
function codeBlocks(): Array<{ lang: string; text: string }> {
  return [...readFileSync(PAGE, 'utf8').matchAll(/```(\w*)\n([^]*?)```/g)].map((match) => ({ lang: match[1], text: match[2] }));
}

describe('docs/testing.md shows the files CI runs (test/consumers), unchanged', () => {
  const blocks = codeBlocks();

  it('shows each file a block names in its first line exactly as it is', () => {
    const named = blocks.filter((block) => block.text.startsWith('// test/consumers/'));
    const files = named.map((block) => block.text.slice(3, block.text.indexOf('\n')));
    expect(files).toEqual(
      expect.arrayContaining([
        'test/consumers/nest11-cjs/src/invoice.tools.ts',
        'test/consumers/nest12-esm/src/invoice.tools.spec.ts',
        'test/consumers/nest12-esm/test/app.e2e-spec.ts',
        'test/consumers/nest12-esm/vitest.config.e2e.ts',
        'test/consumers/nest12-esm/jest.config.js',
      ]),
    );
    for (const [index, block] of named.entries()) {
      expect({ file: files[index], text: block.text.slice(block.text.indexOf('\n') + 1) }).toEqual({
        file: files[index],
        text: readFileSync(files[index], 'utf8'),
      });
    }
  });

  it("shows the Nest 11 app's Jest configurations (package.json and test/jest-e2e.json) as they are", () => {
    const json = blocks
      .filter((block) => block.lang === 'json' && block.text.trimStart().startsWith('{'))
      .map((block) => JSON.parse(block.text));
    const manifest = JSON.parse(readFileSync('test/consumers/nest11-cjs/package.json', 'utf8')) as { jest: unknown };
    expect(json).toContainEqual({ jest: manifest.jest });
    expect(json).toContainEqual(JSON.parse(readFileSync('test/consumers/nest11-cjs/test/jest-e2e.json', 'utf8')));
  });

  it('shows the e2e spec the Nest 11 app runs, but for its CommonJS imports', () => {
    const esm = readFileSync('test/consumers/nest12-esm/test/app.e2e-spec.ts', 'utf8');
    const cjs = readFileSync('test/consumers/nest11-cjs/test/app.e2e-spec.ts', 'utf8');
    const asCommonJs = esm.replace(/(from '\.\/\.\.\/src\/[\w.]+?)\.js'/g, "$1'").replace('nest12-consumer-', 'nest11-consumer-');
    expect(asCommonJs).toBe(cjs);
  });
});
