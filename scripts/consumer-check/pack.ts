import { join } from 'node:path';
import { run } from './shell.ts';

/** One packed tarball, as `npm pack --json` describes it. */
export interface PackedPackage {
  name: string;
  tarball: string;
  size: number;
  unpackedSize: number;
  files: string[];
}

/** Paths that must never ship: tests, test helpers, fixtures, servers, sources. */
const FORBIDDEN = [
  /\.test\./,
  /test-support/,
  /(^|\/)src\//,
  /fixtures/,
  /demo-server|scripted-model|test-authorization|everything-server|conformance/,
];

/**
 * Builds (`prepack`) and packs `@switchboard/core`, `@switchboard/react`, `@switchboard/redis`,
 * `@switchboard/postgres` and `@switchboard/restate`, in that order, into `destination`,
 * and checks that no tarball holds a forbidden path.
 */
export async function packPackages(root: string, destination: string): Promise<PackedPackage[]> {
  const packed: PackedPackage[] = [];
  for (const workspace of [
    '@switchboard/core',
    '@switchboard/react',
    '@switchboard/redis',
    '@switchboard/postgres',
    '@switchboard/restate',
  ]) {
    const { stdout } = await run(
      'npm',
      ['pack', '--workspace', workspace, '--pack-destination', destination, '--json', '--silent'],
      { cwd: root },
    );
    const [entry] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      name: string;
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    if (entry === undefined) throw new Error(`npm pack printed nothing for ${workspace}`);
    const files = entry.files.map((file) => file.path);
    const forbidden = files.filter((file) => FORBIDDEN.some((pattern) => pattern.test(file)));
    if (forbidden.length > 0) {
      throw new Error(`${entry.filename} ships files it must not:\n  ${forbidden.join('\n  ')}`);
    }
    packed.push({
      name: entry.name,
      tarball: join(destination, entry.filename),
      size: entry.size,
      unpackedSize: entry.unpackedSize,
      files,
    });
  }
  return packed;
}

/** publint (strict: warnings fail) and arethetypeswrong (ESM-only profile) on each tarball. */
export async function lintPackages(root: string, packed: readonly PackedPackage[]): Promise<void> {
  for (const { tarball, files } of packed) {
    // A stylesheet has no types to check.
    const css = files.includes('dist/styles.css') ? ['--exclude-entrypoints', './styles.css'] : [];
    await run(join(root, 'node_modules/.bin/publint'), ['run', tarball, '--strict'], { cwd: root });
    // esm-only: the packages are ESM only, so CommonJS `require` resolution is out of scope.
    await run(join(root, 'node_modules/.bin/attw'), [tarball, '--profile', 'esm-only', ...css], {
      cwd: root,
    });
  }
}
