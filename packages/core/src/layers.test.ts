import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layer table of docs/architecture.md, checked: which folder of `packages/core/src` may
 * import which. A folder may always import itself. `index` is the root entry (`src/index.ts`).
 * Keep this table and the one in docs/architecture.md the same.
 */
const allowedImports: Record<string, readonly string[]> = {
  vocabulary: [],
  errors: ['vocabulary'],
  internal: ['errors', 'vocabulary'],
  tools: ['vocabulary', 'errors'],
  model: ['vocabulary', 'tools', 'errors', 'internal'],
  oauth: ['errors', 'internal'],
  history: ['vocabulary', 'errors', 'internal'],
  mcp: ['vocabulary', 'tools', 'errors', 'internal', 'oauth'],
  agent: ['vocabulary', 'tools', 'model', 'history', 'mcp', 'errors', 'internal'],
  chat: ['agent', 'history', 'mcp', 'tools', 'vocabulary', 'errors', 'internal'],
  openai: ['model', 'tools', 'vocabulary', 'errors', 'internal'],
  anthropic: ['model', 'tools', 'vocabulary', 'errors', 'internal'],
  node: ['agent', 'history', 'mcp', 'oauth', 'tools', 'vocabulary', 'errors', 'internal'],
  testing: ['agent', 'mcp', 'model', 'tools', 'vocabulary', 'errors', 'internal'],
  remote: ['agent', 'history', 'vocabulary', 'errors', 'internal'],
  server: ['remote', 'agent', 'vocabulary', 'errors', 'internal'],
  'legacy-sse': ['mcp'],
  index: [
    'agent',
    'chat',
    'remote',
    'history',
    'mcp',
    'model',
    'oauth',
    'tools',
    'vocabulary',
    'errors',
    'internal',
  ],
};

const sourceRoot = dirname(fileURLToPath(import.meta.url));

/** Test code: tests, type tests, and the support modules and contract suites tests share. */
function isTestCode(file: string): boolean {
  return /(\.test(-d)?\.tsx?|(^|[-/])test-support\.tsx?|-contract\.tsx?)$/.test(file);
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Relative imports and re-exports of a file (type-only ones included), as absolute paths. */
function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((reference) => reference.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(dirname(file), specifier));
}

function layerOf(file: string): string {
  const path = relative(sourceRoot, file);
  return path.includes(sep) ? (path.split(sep)[0] as string) : path.replace(/\.tsx?$/, '');
}

const files = sourceFiles(sourceRoot);
const libraryFiles = files.filter((file) => !isTestCode(file));
const graph = new Map(libraryFiles.map((file) => [file, relativeImports(file)]));

describe('the layers of @switchboard/core', () => {
  it('names a layer for every folder', () => {
    const layers = new Set(libraryFiles.map(layerOf));
    expect([...layers].filter((layer) => !(layer in allowedImports))).toEqual([]);
  });

  it('only has import edges the layer table allows', () => {
    const violations = new Set<string>();
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      for (const target of imports) {
        const to = layerOf(target);
        if (to === from || allowedImports[from]?.includes(to)) continue;
        violations.add(`${from} → ${to} (${relative(sourceRoot, file)})`);
      }
    }
    // No allow-list of exceptions: fix the import, or change the table (and the docs) with a reason.
    expect([...violations]).toEqual([]);
  });

  it('keeps library code from importing test code', () => {
    const violations = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => isTestCode(target))
        .map((target) => `${relative(sourceRoot, file)} → ${relative(sourceRoot, target)}`),
    );
    expect(violations).toEqual([]);
  });

  it('has no import cycle between library files (type-only imports count)', () => {
    const cycles = findCycles(graph).map((cycle) =>
      cycle.map((file) => relative(sourceRoot, file)).join(' → '),
    );
    expect(cycles).toEqual([]);
  });

  it('keeps the vocabulary to types, importing only itself', () => {
    for (const file of libraryFiles.filter((f) => layerOf(f) === 'vocabulary')) {
      const source = ts.createSourceFile(
        file,
        readFileSync(file, 'utf8'),
        ts.ScriptTarget.Latest,
        true,
      );
      const logic = source.statements.filter(
        (statement) =>
          !ts.isInterfaceDeclaration(statement) &&
          !ts.isTypeAliasDeclaration(statement) &&
          !(ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly === true),
      );
      expect(logic.map((statement) => statement.getText(source).slice(0, 60))).toEqual([]);
    }
  });
});

const reactRoot = resolve(sourceRoot, '../../react/src');

describe('the layers of @switchboard/react', () => {
  const reactLibraryFiles = sourceFiles(reactRoot).filter((file) => !isTestCode(file));

  it('uses core only through its root entry, never its files or Node-only entries', () => {
    const violations = reactLibraryFiles.flatMap((file) => {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      return info.importedFiles
        .map((reference) => reference.fileName)
        .filter(
          (specifier) =>
            (specifier.startsWith('@switchboard/core') && specifier !== '@switchboard/core') ||
            (specifier.startsWith('.') && !resolve(dirname(file), specifier).startsWith(reactRoot)),
        )
        .map((specifier) => `${relative(reactRoot, file)} → ${specifier}`);
    });
    expect(violations).toEqual([]);
  });

  it('keeps library code from importing test code', () => {
    const violations = reactLibraryFiles.flatMap((file) =>
      relativeImports(file)
        .filter((target) => isTestCode(target.replace(/\.js$/, '.ts')))
        .map((target) => `${relative(reactRoot, file)} → ${relative(reactRoot, target)}`),
    );
    expect(violations).toEqual([]);
  });
});

/** Every elementary cycle found by a depth-first search, each reported once. */
function findCycles(edges: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (!edges.has(next)) continue;
      if (state.get(next) === 'visiting') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
  return cycles;
}
