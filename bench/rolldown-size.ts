import { gzipSync } from 'node:zlib';
import { build } from 'rolldown';

/** Minified and gzip (level 9) bytes of one bundle. */
export interface BundleBytes {
  minified: number;
  gzip: number;
}

/**
 * Bundles an app with Rolldown (the bundler of `vite build` since Vite 8), minified, ESM, for
 * the browser, `react` and `react-dom` external, one chunk — a second bundler beside esbuild,
 * because the two tree-shake differently (Rolldown drops unused exports of a re-exported
 * namespace such as zod's `z`; esbuild keeps them all).
 *
 * @param entry Absolute path of the app's entry file.
 * @throws when Rolldown fails to bundle it.
 */
export async function rolldownSize(entry: string): Promise<BundleBytes> {
  const result = await build({
    input: entry,
    platform: 'browser',
    external: [/^react(?:$|\/)/, /^react-dom(?:$|\/)/],
    transform: { define: { 'process.env.NODE_ENV': '"production"' }, jsx: 'react-jsx' },
    output: { format: 'esm', minify: true, codeSplitting: false, comments: { legal: false } },
    write: false,
    logLevel: 'silent',
  });
  const code = result.output.flatMap((item) => (item.type === 'chunk' ? [item.code] : [])).join('');
  const bytes = Buffer.from(code);
  return { minified: bytes.byteLength, gzip: gzipSync(bytes, { level: 9 }).byteLength };
}
