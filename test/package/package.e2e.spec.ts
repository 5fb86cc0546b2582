import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { stdioLogsToStdout } from '../../lib/transports/transports.messages.js';
import { eventually } from '../utils/http-client.js';
import { createConsumerApp, startConsumerApp, type ConsumerApp, type ModuleResolution } from './consumer-app.js';
import { listFiles, packFreshClone, runCommand, type PackedManifest, type PackedPackage } from './packed-package.js';
import { codeBlock, hostConfigurations, HOSTS_PAGE, quickStartFiles, readmeSection, type HostEntry } from './readme.js';

/** The identifier an app gives the entry point `subpath` of the package (`.` → root, `./typeorm` → typeorm). */
const entryName = (subpath: string): string => (subpath === '.' ? 'root' : subpath.slice(2).replace(/\W/g, '_'));
const specifierOf = (subpath: string): string => (subpath === '.' ? 'nestjs-mcp-fsm' : `nestjs-mcp-fsm/${subpath.slice(2)}`);

/**
 * A file importing every entry point of the package, with a type-level check that each one
 * resolved to declarations (not `any`, not empty).
 */
function entryPointsFile(manifest: PackedManifest): string {
  const subpaths = codeEntries(manifest).map(([subpath]) => subpath);
  const names = subpaths.map(entryName);
  return [
    ...subpaths.map((subpath) => `import * as ${entryName(subpath)} from '${specifierOf(subpath)}';`),
    '',
    '/** `true` when `T` is declared exports: neither `any` (no types found) nor empty. */',
    'type Declared<T> = 0 extends 1 & T ? false : [keyof T] extends [never] ? false : true;',
    '',
    `export const entryPoints = { ${names.join(', ')} };`,
    `export const declared: { [name in keyof typeof entryPoints]: Declared<(typeof entryPoints)[name]> } = { ${names.map((name) => `${name}: true`).join(', ')} };`,
    '',
  ].join('\n');
}

/** A small Nest app on the packed package: one gated workflow, over Streamable HTTP or (`MCP_TRANSPORT=stdio`) stdio. */
const APP_FILES: Record<string, string> = {
  'door.machine.ts': `import { defineMachine } from 'nestjs-mcp-fsm';

export const doorMachine = defineMachine({
  id: 'door',
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
});
`,
  'door.tools.ts': `import { Injectable } from '@nestjs/common';
import { BindState, McpTool, McpWorkflow } from 'nestjs-mcp-fsm';
import { doorMachine } from './door.machine.js';

@Injectable()
@McpWorkflow(doorMachine)
export class DoorTools {
  @McpTool({ name: 'door.open', description: 'Open the closed door' })
  @BindState('closed', 'OPEN')
  open() {
    return { opened: true };
  }

  @McpTool({ name: 'door.close', description: 'Close the open door' })
  @BindState('open', 'CLOSE')
  close() {
    return { closed: true };
  }
}
`,
  'app.module.ts': `import { Module } from '@nestjs/common';
import { McpModule } from 'nestjs-mcp-fsm';
import { doorMachine } from './door.machine.js';
import { DoorTools } from './door.tools.js';

@Module({
  imports: [
    McpModule.forRoot({
      name: 'door',
      version: '1.0.0',
      machines: [doorMachine],
      transports: process.env.MCP_TRANSPORT === 'stdio' ? { http: false, stdio: true } : { http: { path: '/mcp' } },
    }),
  ],
  providers: [DoorTools],
})
export class AppModule {}
`,
  'main.ts': `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module.js';
import { entryPoints } from './entry-points.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'fatal'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const loaded = Object.fromEntries(Object.entries(entryPoints).map(([name, exports]) => [name, Object.keys(exports).length]));
  process.stdout.write(JSON.stringify({ url: \`http://127.0.0.1:\${port}/mcp\`, loaded }) + '\\n');
}

void bootstrap();
`,
};

/** What `tsc` emits for each source file of the package, relative to the package root. */
const OUTPUTS = ['.js', '.js.map', '.d.ts', '.d.ts.map'];

/** The two builds: ES modules (`import`) and CommonJS (`require`), each in a folder whose package.json says which it is. */
const BUILDS = { import: 'dist/esm', require: 'dist/cjs' } as const;

/** The subpaths of the package's code (every export but `./package.json`), with their files per condition. */
const codeEntries = (manifest: PackedManifest) =>
  Object.entries(manifest.exports).filter(
    (entry): entry is [string, Record<'import' | 'require', { types: string; default: string }>] => typeof entry[1] === 'object',
  );

/**
 * A CommonJS script that requires every code subpath and `package.json`, imports the same
 * subpaths, and prints what each build exports: names, and which exported symbols are the
 * same value in both builds.
 */
const bothBuildsScript = (subpaths: string[]): string => `
const subpaths = ${JSON.stringify(subpaths.map(specifierOf))};
(async () => {
  const report = { version: require('nestjs-mcp-fsm/package.json').version, entries: {} };
  for (const specifier of subpaths) {
    const required = require(specifier);
    const imported = await import(specifier);
    const symbols = Object.keys(required).filter((name) => typeof required[name] === 'symbol');
    report.entries[specifier] = {
      required: Object.keys(required).sort(),
      imported: Object.keys(imported).filter((name) => name !== 'default').sort(),
      symbols: symbols.length,
      sameSymbols: symbols.filter((name) => required[name] === imported[name]).length,
      sameClasses: Object.keys(required).filter((name) => typeof required[name] === 'function' && required[name] === imported[name]).length,
    };
  }
  process.stdout.write(JSON.stringify(report));
})();
`;

/** Every `moduleResolution` an app may use; `nodenext` also emits the app the last two tests run. */
const RESOLUTIONS: ModuleResolution[] = ['nodenext', 'node16', 'bundler', 'node10'];

describe('the package as npm pack makes it from a fresh clone', () => {
  let workDir: string;
  let packed: PackedPackage;
  let app: ConsumerApp;
  /** tsc's diagnostics per resolution mode; the compilers run side by side from the start. */
  let compiled: Map<ModuleResolution, Promise<string>>;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'mcp-fsm-package-'));
    packed = await packFreshClone(workDir);
    app = await createConsumerApp(join(workDir, 'app'), packed.tarball, {
      ...APP_FILES,
      'entry-points.ts': entryPointsFile(packed.manifest),
      'main-stdio.ts': codeBlock(readmeSection('Connect a host', HOSTS_PAGE), '// main-stdio.ts'),
      ...Object.fromEntries(Object.entries(quickStartFiles()).map(([file, text]) => [`quick-start/${file}`, text])),
    });
    compiled = new Map(RESOLUTIONS.map((mode) => [mode, app.compile(mode, { emit: mode === 'nodenext' })]));
  }, 300_000);

  afterAll(() => {
    if (workDir) {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('holds the built dist/ for every source file, those sources (no specs), LICENSE, README, docs/ and CHANGELOG', () => {
    const sources = listFiles('lib')
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.fixture.ts'))
      .map((file) => `lib/${file}`);
    const built = Object.values(BUILDS).flatMap((dir) => [
      `${dir}/package.json`,
      ...sources.flatMap((source) => OUTPUTS.map((ext) => source.replace(/^lib\//, `${dir}/`).replace(/\.ts$/, ext))),
    ]);
    const docs = listFiles('docs').map((file) => `docs/${file}`);
    expect(docs).toContain('docs/stores.md');
    expect(packed.files).toEqual([...built, ...sources, ...docs, 'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'].sort());
    expect(JSON.parse(readFileSync(join(packed.dir, 'dist/esm/package.json'), 'utf8'))).toEqual({ type: 'module' });
    expect(JSON.parse(readFileSync(join(packed.dir, 'dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    expect(packed.files.filter((file) => /\.(spec|fixture)\./.test(file))).toEqual([]);
    expect(readFileSync(join(packed.dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 nestjs-mcp-fsm contributors\n/);
  });

  it('ships js and d.ts of both builds for every entry point, node10 types for every subpath, and exports package.json', () => {
    const { exports, typesVersions } = packed.manifest;
    expect(Object.keys(exports)).toEqual(['.', './extend', './testing', './typeorm', './redis', './terminus', './package.json']);
    expect(exports['./package.json']).toBe('./package.json');
    for (const [, entry] of codeEntries(packed.manifest)) {
      expect(Object.keys(entry)).toEqual(['import', 'require']);
      for (const [condition, dir] of Object.entries(BUILDS)) {
        const { types, default: js } = entry[condition as keyof typeof BUILDS];
        expect([types, js].every((file) => file.startsWith(`./${dir}/`))).toBe(true);
        expect(packed.files).toEqual(expect.arrayContaining([types.slice(2), js.slice(2)]));
      }
    }
    const subpaths = codeEntries(packed.manifest).filter(([subpath]) => subpath !== '.');
    expect(typesVersions).toEqual({
      '*': Object.fromEntries(subpaths.map(([subpath, entry]) => [subpath.slice(2), [entry.require.types]])),
    });
    expect([packed.manifest.main, packed.manifest.types]).toEqual(['./dist/cjs/index.js', './dist/cjs/index.d.ts']);
    expect(packed.files).toEqual(
      expect.arrayContaining([packed.manifest.main, packed.manifest.types].map((file) => normalize(file as string))),
    );
  });

  it('require and import load the two builds of every entry point with the same exports, the same DI symbols, and package.json', async () => {
    const subpaths = codeEntries(packed.manifest).map(([subpath]) => subpath);
    writeFileSync(join(app.dir, 'both-builds.cjs'), bothBuildsScript(subpaths));
    const report = JSON.parse(await runCommand(process.execPath, ['both-builds.cjs'], app.dir)) as {
      version: string;
      entries: Record<string, { required: string[]; imported: string[]; symbols: number; sameSymbols: number; sameClasses: number }>;
    };
    expect(report.version).toBe(packed.manifest.version);
    expect(Object.keys(report.entries)).toEqual(subpaths.map(specifierOf));
    for (const entry of Object.values(report.entries)) {
      expect(entry.required.length).toBeGreaterThan(0);
      expect(entry.required).toEqual(entry.imported);
      // Two copies of the code: classes differ, but every DI token that is a symbol is the same.
      expect(entry.sameClasses).toBe(0);
      expect(entry.sameSymbols).toBe(entry.symbols);
    }
    expect(report.entries['nestjs-mcp-fsm'].symbols).toBeGreaterThan(0);
  });

  it('points every source map at a file in the package', () => {
    const maps = packed.files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const unshipped = maps.flatMap((map) => {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(join(packed.dir, map), 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
      };
      return sources
        .map((source) => join(dirname(map), sourceRoot, source))
        .filter((source) => source.startsWith('..') || !existsSync(join(packed.dir, source)))
        .map((source) => `${map} → ${source}`);
    });
    expect(unshipped).toEqual([]);
  });

  it('declares the metadata a registry shows and the Node version Nest 12 needs', () => {
    expect(packed.manifest).toMatchObject({
      license: 'MIT',
      author: 'nestjs-mcp-fsm contributors',
      repository: { type: 'git', url: 'git+https://github.com/nestjs-mcp-fsm/nestjs-mcp-fsm.git' },
      homepage: 'https://github.com/nestjs-mcp-fsm/nestjs-mcp-fsm#readme',
      bugs: { url: 'https://github.com/nestjs-mcp-fsm/nestjs-mcp-fsm/issues' },
      engines: { node: '>=20.19' },
      description: expect.stringContaining('MCP'),
      keywords: expect.arrayContaining(['nestjs', 'mcp']),
    });
  });

  it.each(RESOLUTIONS)(
    "an app importing the root and every subpath, and the README's Quick start, compile under moduleResolution %s",
    async (moduleResolution) => {
      expect(await compiled.get(moduleResolution)).toBe('');
    },
    120_000,
  );

  /** Drives the door workflow through `client`: the gated tool is hidden, refused, then fires. */
  const driveDoor = async (client: Client) => {
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    expect(await names()).toEqual(['door.open']);

    const refused = (await client.callTool({ name: 'door.close', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'closed' });

    const opened = (await client.callTool({ name: 'door.open', arguments: {} })) as CallToolResult;
    expect(opened.structuredContent).toEqual({ opened: true });
    await eventually(() => changes === 1);
    expect(await names()).toEqual(['door.close']);
  };

  it('a Nest app on the packed package serves a gated tool to the SDK client over Streamable HTTP', async () => {
    expect(await compiled.get('nodenext')).toBe('');
    const server = await startConsumerApp(app, 'main.js');
    const client = new Client({ name: 'package-e2e', version: '1.0.0' });
    try {
      const { url, loaded } = JSON.parse(server.firstLine) as { url: string; loaded: Record<string, number> };
      expect(Object.keys(loaded).sort()).toEqual(
        codeEntries(packed.manifest)
          .map(([subpath]) => entryName(subpath))
          .sort(),
      );
      expect(Object.values(loaded).every((count) => count > 0)).toBe(true);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await driveDoor(client);
    } finally {
      await client.close();
      await server.stop();
    }
  }, 120_000);

  it("the README's Claude Desktop entry starts the README's main-stdio.ts, whose logs stay off the protocol", async () => {
    expect(await compiled.get('nodenext')).toBe('');
    const { mcpServers } = hostConfigurations()['Claude Desktop'] as { mcpServers: Record<string, HostEntry> };
    const [entry] = Object.values(mcpServers);
    expect(entry.command).toBe('node');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: entry.args!.map((arg) => arg.replace(/^.*\/dist\//, `${join(app.dir, 'out')}/`)),
      env: { ...getDefaultEnvironment(), NO_COLOR: '1', ...entry.env },
      // A host starts the server in a directory of its own.
      cwd: workDir,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'package-e2e', version: '1.0.0' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    try {
      await driveDoor(client);
    } finally {
      await client.close();
    }
    expect(errors).toEqual([]);
    expect(stderr).toMatch(/^\[Nest\] \d+ .*Starting Nest application/m);
    expect(stderr).not.toContain(stdioLogsToStdout());
  }, 120_000);
});
