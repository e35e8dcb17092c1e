import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * One name, one thing across the public entries: a name exported by two entries (say
 * `@switchboard/core` and `@switchboard/core/node`) must be the same value or type re-exported,
 * never two different things that an import from the wrong entry silently swaps.
 */
const sourceRoot = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = resolve(sourceRoot, '../../..');

/** Every public entry: the `exports` of the published packages (as source). */
const entries: Record<string, string> = {
  '@switchboard/core': join(sourceRoot, 'index.ts'),
  '@switchboard/core/node': join(sourceRoot, 'node/index.ts'),
  '@switchboard/core/openai': join(sourceRoot, 'openai/index.ts'),
  '@switchboard/core/anthropic': join(sourceRoot, 'anthropic/index.ts'),
  '@switchboard/core/testing': join(sourceRoot, 'testing/index.ts'),
  '@switchboard/core/server': join(sourceRoot, 'server/index.ts'),
  '@switchboard/core/legacy-sse': join(sourceRoot, 'legacy-sse/index.ts'),
  '@switchboard/react': join(repositoryRoot, 'packages/react/src/index.ts'),
  '@switchboard/redis': join(repositoryRoot, 'packages/redis/src/index.ts'),
  '@switchboard/postgres': join(repositoryRoot, 'packages/postgres/src/index.ts'),
};

/** `name (entry a, entry b)` for every name two entries export as different things. */
function clashes<Thing>(exportsByEntry: Map<string, Map<string, Thing>>): string[] {
  const seen = new Map<string, { entry: string; thing: Thing }>();
  const found: string[] = [];
  for (const [entry, named] of exportsByEntry) {
    for (const [name, thing] of named) {
      const first = seen.get(name);
      if (first === undefined) seen.set(name, { entry, thing });
      else if (first.thing !== thing) found.push(`${name} (${first.entry}, ${entry})`);
    }
  }
  return found;
}

describe('the public names', () => {
  it('give every value exported by two entries the same value', async () => {
    const exportsByEntry = new Map<string, Map<string, unknown>>();
    for (const [entry, file] of Object.entries(entries)) {
      const module = (await import(file)) as Record<string, unknown>;
      exportsByEntry.set(entry, new Map(Object.entries(module)));
    }
    expect(clashes(exportsByEntry)).toEqual([]);
  });

  it('give every name (types included) exported by two entries the same declaration', () => {
    const config = ts.readConfigFile(join(repositoryRoot, 'tsconfig.base.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repositoryRoot);
    const program = ts.createProgram(Object.values(entries), { ...options, noEmit: true });
    const checker = program.getTypeChecker();
    const exportsByEntry = new Map<string, Map<string, string>>();
    for (const [entry, file] of Object.entries(entries)) {
      const source = program.getSourceFile(file);
      const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      if (module === undefined) throw new Error(`${entry}: no module at ${file}`);
      const named = new Map<string, string>();
      for (const symbol of checker.getExportsOfModule(module)) {
        const target =
          symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const declaration = target.declarations?.[0];
        const where =
          declaration === undefined
            ? target.name
            : `${relative(repositoryRoot, declaration.getSourceFile().fileName)}#${target.name}`;
        named.set(symbol.name, where);
      }
      exportsByEntry.set(entry, named);
    }
    expect(clashes(exportsByEntry)).toEqual([]);
  }, 120_000);
});
