import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PACKAGE_VERSION } from '../../lib/mcp.constants.js';

/** Bare modules that the runtime import graph of `entry` loads (type-only imports excluded). */
function runtimeImports(entry: string): { static: Set<string>; dynamic: Set<string> } {
  const seen = new Set<string>();
  const found = { static: new Set<string>(), dynamic: new Set<string>() };
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)) {
      const spec = match[1];
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else found.static.add(spec);
    }
    for (const match of source.matchAll(/import\('([^']+)'\)/g)) found.dynamic.add(match[1]);
  };
  walk(resolve(entry));
  return found;
}

describe('package entry points', () => {
  it("names the package's own version in PACKAGE_VERSION (the instrumentation scope's version)", () => {
    expect(PACKAGE_VERSION).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
  });

  it('the root entry needs neither typeorm, xstate, jose, elkjs, the SDK v2 server packages, terminus nor the OpenTelemetry API at load time (all optional peers)', () => {
    const imports = runtimeImports('lib/index.ts');
    const optional = [...imports.static].filter((spec) =>
      /^(typeorm|xstate|jose|elkjs|@nestjs\/typeorm|@nestjs\/terminus|@opentelemetry\/.*|pg|mysql2|better-sqlite3|@modelcontextprotocol\/(server|node))(\/|$)/.test(
        spec,
      ),
    );
    expect(optional).toEqual([]);
    expect([...imports.dynamic].sort()).toEqual([
      '@modelcontextprotocol/node',
      '@modelcontextprotocol/server',
      '@opentelemetry/api',
      'elkjs/lib/elk.bundled.js',
      'jose',
      'xstate',
    ]);
  });

  it('the terminus subpath is where @nestjs/terminus is loaded, and no OpenTelemetry SDK is loaded anywhere', () => {
    expect(runtimeImports('lib/terminus.ts').static.has('@nestjs/terminus')).toBe(true);
    for (const entry of ['lib/index.ts', 'lib/extend.ts', 'lib/typeorm.ts', 'lib/redis.ts', 'lib/terminus.ts', 'lib/testing.ts']) {
      const { static: loaded, dynamic } = runtimeImports(entry);
      expect([...loaded, ...dynamic].filter((spec) => spec.startsWith('@opentelemetry/') && spec !== '@opentelemetry/api')).toEqual([]);
    }
  });

  it('the typeorm subpath is where typeorm is loaded', () => {
    const imports = runtimeImports('lib/typeorm.ts');
    expect(imports.static.has('typeorm')).toBe(true);
  });
});
