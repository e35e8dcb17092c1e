import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
import type { Benchmark } from '../benchmark.ts';
import { packageCosts, type PackageCost } from '../bundle-breakdown.ts';
import { rolldownSize } from '../rolldown-size.ts';
import type { Figure } from '../report.ts';

const BENCH_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));
/** Every React app has these already; they are left out of every bundle alike. */
const REACT = new Set(['react', 'react-dom']);

interface Size {
  minified: number;
  gzip: number;
  metafile: Metafile;
  /** Per package, when measured with a source map (the two apps). */
  costs?: PackageCost[];
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

/**
 * Drops the `sourceMappingURL` comment of every file in `node_modules`, so the bundle's source
 * map points at the installed files (what the metafile counts) rather than through their own
 * maps to their authors' sources (the MCP SDK's map names `core-internal` files it bundles).
 * Minifying drops the comment anyway: the output is the same.
 */
const installedSources: Plugin = {
  name: 'bench-installed-sources',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/].*\.(?:mjs|cjs|js)$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/^\/\/# sourceMappingURL=.*$/gm, ''),
      loader: 'js',
    }));
  },
};

async function measure(
  source: { contents: string } | { entry: string },
  mode: 'own' | 'with-dependencies',
  ownPackage?: string,
  breakdown = false,
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
    // An external map adds no comment to the bundle, so its size stays what an app ships.
    ...(breakdown
      ? {
          sourcemap: 'external' as const,
          sourcesContent: false,
          outfile: `${BENCH_DIRECTORY}app.js`,
        }
      : {}),
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [externals(mode, ownPackage), ...(breakdown ? [installedSources] : [])],
    logLevel: 'silent',
  });
  const output = result.outputFiles.find((file) => !file.path.endsWith('.map'));
  if (output === undefined) throw new Error('esbuild produced nothing');
  const sourceMap = result.outputFiles.find((file) => file.path.endsWith('.map'));
  return {
    minified: output.contents.byteLength,
    gzip: gzipSync(output.contents, { level: 9 }).byteLength,
    metafile: result.metafile,
    ...(sourceMap === undefined
      ? {}
      : { costs: packageCosts(output.text, sourceMap.text, result.metafile) }),
  };
}

/** Issue 17, item 8: the minimal app at most half the AI SDK twin's gzip size. */
const TARGET_RATIO = 0.5;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Packages listed one by one per app; the rest are summed as one line. */
const LISTED_PACKAGES = 10;

/** One figure per dependency of an app: its gzip share and minified bytes. */
function dependencyFigures(app: string, size: Size): Figure[] {
  const costs = size.costs ?? [];
  const listed = costs.slice(0, LISTED_PACKAGES);
  const rest = costs.slice(LISTED_PACKAGES);
  const figure = (name: string, parts: PackageCost[]): Figure => {
    const gzip = parts.reduce((sum, cost) => sum + cost.gzipShare, 0);
    const minified = parts.reduce((sum, cost) => sum + cost.minified, 0);
    return {
      label: `${app}: ${name}`,
      value:
        `${kib(gzip)} of the gzip (${((100 * gzip) / size.gzip).toFixed(1)}%), ` +
        `${kib(minified)} minified (${((100 * minified) / size.minified).toFixed(1)}%)`,
      unit: '',
    };
  };
  const figures = listed.map((cost) => figure(cost.name, [cost]));
  if (rest.length > 0) {
    figures.push(figure(`${rest.length} more (${rest.map((cost) => cost.name).join(', ')})`, rest));
  }
  return figures;
}

export const bundleSizeBenchmark: Benchmark = {
  id: 9,
  key: 'bundle-size',
  title: 'Bundle size, minified + gzip: core root entry, react package, minimal app',
  baseline:
    '`ai` + `@ai-sdk/react` + `use-mcp` (+ `@ai-sdk/openai`) bundling an equivalent minimal app',
  target: 'minimal app ≤ 0.5× (gzip)',
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
      undefined,
      true,
    );
    const peerApp = await measure(
      { entry: '../bundle-apps/ai-sdk-app.tsx' },
      'with-dependencies',
      undefined,
      true,
    );

    log('bundling the two minimal apps with Rolldown');
    const appPath = (file: string) =>
      fileURLToPath(new URL(`../bundle-apps/${file}`, import.meta.url));
    const switchboardRolldown = await rolldownSize(appPath('switchboard-app.tsx'));
    const peerRolldown = await rolldownSize(appPath('ai-sdk-app.tsx'));
    const rolldownRatio = switchboardRolldown.gzip / peerRolldown.gzip;

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
    figures.push(
      {
        label: 'Minimal apps bundled by Rolldown (Vite 8), Switchboard / peers',
        value: `${kib(switchboardRolldown.gzip)} / ${kib(peerRolldown.gzip)} gzip (×${rolldownRatio.toFixed(3)}); ${kib(switchboardRolldown.minified)} / ${kib(peerRolldown.minified)} minified`,
        unit: '',
      },
      ...dependencyFigures('Switchboard app', switchboardApp),
      ...dependencyFigures('Peer app', peerApp),
    );
    const notes = [
      'Per dependency: its bytes in the minified app (esbuild metafile), and its part of the ' +
        "app's gzip size — each package's output (split by the source map) gzipped alone, " +
        "scaled so the parts add up to the app's gzip size (gzip shares strings across " +
        'packages, so parts gzipped apart add up to more).',
      'The target is judged on the esbuild bundles. Rolldown tree-shakes a re-exported ' +
        "namespace (zod's `z`, which the AI SDK imports by name) where esbuild keeps all of it, " +
        'so the peer app is smaller there and the ratio higher; both are reported.',
      ...failures.map((failure) => `Could not bundle ${failure}`),
    ];
    const core = rows[0];
    const react = rows[2];
    return {
      verdict:
        failures.length > 0
          ? 'not measured'
          : switchboardApp.gzip / peerApp.gzip <= TARGET_RATIO
            ? 'met'
            : 'missed',
      headline:
        `core root ${core?.own === undefined ? '?' : kib(core.own.gzip)} own / ` +
        `${core?.withDependencies === undefined ? '?' : kib(core.withDependencies.gzip)} with deps; ` +
        `react ${react?.own === undefined ? '?' : kib(react.own.gzip)} / ` +
        `${react?.withDependencies === undefined ? '?' : kib(react.withDependencies.gzip)}; ` +
        `minimal app ${kib(switchboardApp.gzip)} vs ${kib(peerApp.gzip)} (×${(switchboardApp.gzip / peerApp.gzip).toFixed(2)}); ` +
        `with Rolldown ${kib(switchboardRolldown.gzip)} vs ${kib(peerRolldown.gzip)} (×${rolldownRatio.toFixed(2)})`,
      figures,
      method:
        'esbuild 0.28 (bundle, minify, ESM, browser, es2022, `NODE_ENV=production`), gzip level 9 ' +
        'with `node:zlib`. Libraries: `export * from "<entry>"` (their whole public API) with every ' +
        'other package external ("own code") or bundled ("with dependencies"). Apps ' +
        '(`bench/bundle-apps/`): the same chat — stream from an OpenAI-compatible model, call the ' +
        'tools of one MCP server, render messages — written on each stack and tree-shaken. ' +
        '`react` and `react-dom` are external in every bundle (any React app already has them). ' +
        'Per dependency: each app is built with an external source map (no comment is added, so ' +
        'the bytes are the ones measured) and split by it.',
      notes,
    };
  },
};
