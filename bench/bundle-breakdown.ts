import { gzipSync } from 'node:zlib';
import { decode } from '@jridgewell/sourcemap-codec';
import type { Metafile } from 'esbuild';

/** What one package adds to a bundle. */
export interface PackageCost {
  /** `zod`, `@modelcontextprotocol/client`, `@switchboard/core`, or a path outside any package. */
  name: string;
  /** Bytes of the minified output that come from the package (esbuild's `bytesInOutput`). */
  minified: number;
  /** Those bytes gzipped on their own (level 9). */
  gzipAlone: number;
  /**
   * The package's part of the whole bundle's gzip size: `gzipAlone` scaled so that every
   * package's parts add up to the bundle's gzip size (gzip shares repeated strings across
   * packages, so parts gzipped apart add up to more than the whole).
   */
  gzipShare: number;
}

/** The package an input path belongs to: `node_modules/<name>` or `packages/<core|react|…>`. */
export function packageOfInput(path: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (dependency !== undefined) return dependency;
  const workspace = /(?:^|\/)packages\/([^/]+)\//.exec(path)?.[1];
  return workspace === undefined ? path.replace(/^(\.\.\/)+/, '') : `@switchboard/${workspace}`;
}

/**
 * Splits a minified bundle by package, with gzip sizes: each output segment of the source map
 * (esbuild maps every minified token to its input file) is given to its input's package, and
 * each package's text is gzipped alone. Output the map gives to no input (esbuild's own glue:
 * the module wrappers, the `export` statement) is counted as `(esbuild runtime)`.
 *
 * @param code The bundle's text.
 * @param sourceMap The bundle's source map (JSON text), v3, as esbuild writes it.
 * @param metafile esbuild's metafile of the same build, for the exact minified bytes.
 * @returns Largest `gzipShare` first.
 */
export function packageCosts(code: string, sourceMap: string, metafile: Metafile): PackageCost[] {
  const map = JSON.parse(sourceMap) as { sources: string[]; mappings: string };
  const texts = new Map<string, string[]>();
  const add = (name: string, text: string) => {
    const list = texts.get(name);
    if (list === undefined) texts.set(name, [text]);
    else list.push(text);
  };
  const lines = code.split('\n');
  const decoded = decode(map.mappings);
  for (const [index, line] of lines.entries()) {
    const segments = decoded[index] ?? [];
    // Source-map columns count UTF-16 code units, as JavaScript string indices do.
    let covered = 0;
    for (const [position, segment] of segments.entries()) {
      const start = segment[0];
      const end = segments[position + 1]?.[0] ?? line.length;
      if (start > covered) add('(esbuild runtime)', line.slice(covered, start));
      const source = segment.length > 1 ? map.sources[segment[1] as number] : undefined;
      add(
        source === undefined ? '(esbuild runtime)' : packageOfInput(source),
        line.slice(start, end),
      );
      covered = end;
    }
    if (covered < line.length) add('(esbuild runtime)', line.slice(covered));
  }

  const minified = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const name = packageOfInput(path);
      minified.set(name, (minified.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  const total = gzipSync(code, { level: 9 }).byteLength;
  const costs = [...texts].map(([name, parts]) => ({
    name,
    minified: minified.get(name) ?? Buffer.byteLength(parts.join('')),
    gzipAlone: gzipSync(parts.join(''), { level: 9 }).byteLength,
  }));
  const sumAlone = costs.reduce((sum, cost) => sum + cost.gzipAlone, 0);
  return costs
    .map((cost) => ({
      ...cost,
      gzipShare: sumAlone === 0 ? 0 : (total * cost.gzipAlone) / sumAlone,
    }))
    .sort((a, b) => b.gzipShare - a.gzipShare);
}
