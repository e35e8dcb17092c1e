import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
import type { Benchmark } from '../benchmark.ts';
import type { Figure } from '../report.ts';

const BENCH_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));
/** Every React app has these already; they are left out of every bundle alike. */
const REACT = new Set(['react', 'react-dom']);

interface Size {
  minified: number;
  gzip: number;
  metafile: Metafile;
}

interface Row {
  label: string;
  own?: Size;
  withDependencies?: Size;
}

function packageOf(specifier: string): string {
  const segments = specifier.split('/');
  return specifier.startsWith('@') ? segments.slice(0, 2).join('/') : (segments[0] as string);
}

/**
 * Marks bare imports external: in `own` mode every package but `ownPackage` (so only that
 * package's own code is counted), otherwise only React.
 */
function externals(mode: 'own' | 'with-dependencies', ownPackage: string | undefined): Plugin {
  return {
    name: 'bench-externals',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = packageOf(args.path);
        if (REACT.has(name)) return { path: args.path, external: true };
        if (mode === 'own' && name !== ownPackage) return { path: args.path, external: true };
        return undefined;
      });
    },
  };
}

async function measure(
  source: { contents: string } | { entry: string },
  mode: 'own' | 'with-dependencies',
  ownPackage?: string,
): Promise<Size> {
  const result = await build({
    ...('contents' in source
      ? {
          stdin: {
            contents: source.contents,
            resolveDir: BENCH_DIRECTORY,
            loader: 'ts' as const,
            sourcefile: 'entry.ts',
          },
        }
      : { entryPoints: [fileURLToPath(new URL(source.entry, import.meta.url))] }),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    write: false,
    metafile: true,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [externals(mode, ownPackage)],
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error('esbuild produced nothing');
  return {
    minified: output.contents.byteLength,
    gzip: gzipSync(output.contents, { level: 9 }).byteLength,
    metafile: result.metafile,
  };
}

/** Bytes in the output per package (`node_modules/<name>` or a workspace package), largest first. */
function contributors(size: Size): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(size.metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const name =
        match?.[1] ??
        /packages\/(core|react)\//.exec(path)?.[1]?.replace(/^/, '@switchboard/') ??
        path;
      totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export const bundleSizeBenchmark: Benchmark = {
  id: 9,
  key: 'bundle-size',
  title: 'Bundle size, minified + gzip: core root entry, react package, minimal app',
  baseline:
    '`ai` + `@ai-sdk/react` + `use-mcp` (+ `@ai-sdk/openai`) bundling an equivalent minimal app',
  target: 'reported side by side',
  async run({ log }) {
    const libraries: { label: string; specifier: string }[] = [
      { label: '`@switchboard/core` (root entry)', specifier: '@switchboard/core' },
      { label: '`@switchboard/core/openai`', specifier: '@switchboard/core/openai' },
      { label: '`@switchboard/react`', specifier: '@switchboard/react' },
      { label: '`ai`', specifier: 'ai' },
      { label: '`@ai-sdk/react`', specifier: '@ai-sdk/react' },
      { label: '`@ai-sdk/openai`', specifier: '@ai-sdk/openai' },
      { label: '`use-mcp/react`', specifier: 'use-mcp/react' },
    ];
    const rows: Row[] = [];
    const failures: string[] = [];
    for (const { label, specifier } of libraries) {
      log(`bundling ${specifier}`);
      const row: Row = { label };
      const contents = `export * from '${specifier}';`;
      try {
        row.own = await measure({ contents }, 'own', packageOf(specifier));
        row.withDependencies = await measure({ contents }, 'with-dependencies');
      } catch (error) {
        failures.push(`${specifier}: ${error instanceof Error ? error.message : String(error)}`);
      }
      rows.push(row);
    }
    log('bundling the two minimal apps');
    const switchboardApp = await measure(
      { entry: '../bundle-apps/switchboard-app.tsx' },
      'with-dependencies',
    );
    const peerApp = await measure({ entry: '../bundle-apps/ai-sdk-app.tsx' }, 'with-dependencies');

    const figures: Figure[] = [];
    for (const row of rows) {
      if (row.own === undefined || row.withDependencies === undefined) continue;
      figures.push({
        label: `${row.label}, own code / with dependencies (everything it exports)`,
        value: `${kib(row.own.gzip)} / ${kib(row.withDependencies.gzip)} gzip (${kib(row.own.minified)} / ${kib(row.withDependencies.minified)} minified)`,
        unit: '',
      });
    }
    figures.push(
      {
        label: 'Minimal app, Switchboard (core + openai + react)',
        value: switchboardApp.gzip,
        unit: 'bytes',
        note: `${kib(switchboardApp.gzip)} gzip, ${kib(switchboardApp.minified)} minified`,
      },
      {
        label: 'Minimal app, ai + @ai-sdk/react + @ai-sdk/openai + use-mcp',
        value: peerApp.gzip,
        unit: 'bytes',
        note: `${kib(peerApp.gzip)} gzip, ${kib(peerApp.minified)} minified`,
      },
      {
        label: 'Minimal app, Switchboard / peers (gzip)',
        value: switchboardApp.gzip / peerApp.gzip,
        unit: 'ratio',
      },
    );
    const top = (size: Size) =>
      contributors(size)
        .slice(0, 6)
        .map(([name, bytes]) => `${name} ${kib(bytes)}`)
        .join(', ');
    const notes = [
      `Largest contributors to the Switchboard app (minified, before gzip): ${top(switchboardApp)}.`,
      `Largest contributors to the peer app: ${top(peerApp)}.`,
      ...failures.map((failure) => `Could not bundle ${failure}`),
    ];
    const core = rows[0];
    const react = rows[2];
    return {
      verdict: failures.length === 0 ? 'reported' : 'not measured',
      headline:
        `core root ${core?.own === undefined ? '?' : kib(core.own.gzip)} own / ` +
        `${core?.withDependencies === undefined ? '?' : kib(core.withDependencies.gzip)} with deps; ` +
        `react ${react?.own === undefined ? '?' : kib(react.own.gzip)} / ` +
        `${react?.withDependencies === undefined ? '?' : kib(react.withDependencies.gzip)}; ` +
        `minimal app ${kib(switchboardApp.gzip)} vs ${kib(peerApp.gzip)} (×${(switchboardApp.gzip / peerApp.gzip).toFixed(2)})`,
      figures,
      method:
        'esbuild 0.28 (bundle, minify, ESM, browser, es2022, `NODE_ENV=production`), gzip level 9 ' +
        'with `node:zlib`. Libraries: `export * from "<entry>"` (their whole public API) with every ' +
        'other package external ("own code") or bundled ("with dependencies"). Apps ' +
        '(`bench/bundle-apps/`): the same chat — stream from an OpenAI-compatible model, call the ' +
        'tools of one MCP server, render messages — written on each stack and tree-shaken. ' +
        '`react` and `react-dom` are external in every bundle (any React app already has them).',
      notes,
    };
  },
};
