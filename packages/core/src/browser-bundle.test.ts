import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Message, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const coreDirectory = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));

const browserOptions = {
  platform: 'browser',
  bundle: true,
  format: 'esm',
  write: false,
  // The workspace packages from source (their `@switchboard/source` export condition).
  conditions: ['browser', '@switchboard/source'],
  metafile: true,
  logLevel: 'silent',
} as const satisfies BuildOptions;

const builtins = new Set(builtinModules.flatMap((name) => [name, name.split('/')[0] as string]));

/** True for `node:fs`, `fs`, `fs/promises`, `child_process`, … */
function isNodeBuiltin(specifier: string): boolean {
  return (
    specifier.startsWith('node:') ||
    builtins.has(specifier) ||
    builtins.has(specifier.split('/')[0] as string)
  );
}

/**
 * Bundles for the browser and returns the metafile; a failed build rejects with esbuild's
 * messages (for platform `browser` an unresolvable Node built-in is such an error).
 */
async function bundleForBrowser(options: BuildOptions): Promise<Metafile> {
  let result;
  try {
    result = await build({ ...browserOptions, ...options });
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors ?? [];
    const details = messages
      .map((message) => {
        const where = message.location ? `${message.location.file}:${message.location.line}: ` : '';
        const notes = message.notes.map((note) => `\n    ${note.text}`).join('');
        return `${where}${message.text}${notes}`;
      })
      .join('\n');
    throw new Error(`The browser build failed:\n${details || String(error)}`, { cause: error });
  }
  expect(result.outputFiles?.[0]?.text.length ?? 0).toBeGreaterThan(0);
  if (result.metafile === undefined) throw new Error('esbuild returned no metafile');
  return result.metafile;
}

/** The inputs with bytes in the output (what tree-shaking kept, not every file it read). */
function emittedInputs(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, details]) => details.bytesInOutput > 0)
      .map(([input]) => input),
  );
}

/** Every import of a Node built-in in the bundle, as `importer → specifier`. */
function nodeBuiltinImports(metafile: Metafile): string[] {
  const found: string[] = [];
  for (const [input, details] of Object.entries(metafile.inputs)) {
    if (isNodeBuiltin(input)) found.push(`(input) ${input}`);
    for (const imported of details.imports) {
      const specifier = imported.original ?? imported.path;
      if (
        isNodeBuiltin(imported.path) ||
        (imported.external === true && isNodeBuiltin(specifier))
      ) {
        found.push(`${input} → ${imported.path}`);
      }
    }
  }
  return found;
}

describe('browser bundle', () => {
  it('bundles the root entry (src/index.ts) without any Node built-in', async () => {
    const metafile = await bundleForBrowser({
      entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
      absWorkingDir: repositoryRoot,
    });

    expect(nodeBuiltinImports(metafile)).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('packages/core/src/index.ts');
    expect(inputs).toContain('packages/core/src/agent/run.ts');
    expect(inputs.some((input) => input.includes('node_modules/zod/'))).toBe(true);
    expect(inputs.some((input) => input.includes('@modelcontextprotocol/client'))).toBe(true);
    // The test helpers (Node servers) and the OpenAI adapter stay out of the root entry.
    expect(inputs.filter((input) => input.includes('/src/testing/'))).toEqual([]);
    expect(inputs.filter((input) => input.includes('node_modules/openai/'))).toEqual([]);
  });

  it('tree-shakes zod in the root entry: no zod locale but English reaches the output', async () => {
    // `import { z } from 'zod'` (a re-exported namespace object) makes esbuild keep all of zod,
    // every locale included (~65 KiB gzip); `import * as z from 'zod'` lets it keep what is used.
    const metafile = await bundleForBrowser({
      entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
      absWorkingDir: repositoryRoot,
      minify: true,
    });

    const emitted = emittedInputs(metafile);
    expect(emitted.some((input) => input.includes('node_modules/zod/'))).toBe(true);
    expect(
      emitted.filter((input) => /node_modules\/zod\/.*\/locales\/(?!en\.js)/.test(input)),
    ).toEqual([]);
  });

  it('keeps the legacy SSE transport (and eventsource) out of the root entry', async () => {
    const metafile = await bundleForBrowser({
      entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
      absWorkingDir: repositoryRoot,
    });

    const emitted = emittedInputs(metafile);
    expect(emitted.some((input) => input.includes('@modelcontextprotocol/client'))).toBe(true);
    expect(emitted.filter((input) => input.includes('node_modules/eventsource/'))).toEqual([]);
    expect(emitted.filter((input) => input.includes('/src/legacy-sse/'))).toEqual([]);
  });

  it('bundles @switchboard/core/legacy-sse for the browser, with eventsource included', async () => {
    const metafile = await bundleForBrowser({
      stdin: {
        contents: "export * from '@switchboard/core/legacy-sse';",
        resolveDir: repositoryRoot,
        loader: 'ts',
        sourcefile: 'entry.ts',
      },
      absWorkingDir: repositoryRoot,
    });

    expect(nodeBuiltinImports(metafile)).toEqual([]);
    const emitted = emittedInputs(metafile);
    expect(emitted).toContain('packages/core/src/legacy-sse/index.ts');
    expect(emitted.some((input) => input.includes('node_modules/eventsource/'))).toBe(true);
  });

  it('bundles @switchboard/core/openai for the browser, with openai included', async () => {
    const metafile = await bundleForBrowser({
      stdin: {
        contents: "export * from '@switchboard/core/openai';",
        resolveDir: repositoryRoot,
        loader: 'ts',
        sourcefile: 'entry.ts',
      },
      absWorkingDir: repositoryRoot,
    });

    expect(nodeBuiltinImports(metafile)).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('packages/core/src/openai/openai-chat-model.ts');
    expect(inputs.some((input) => input.includes('node_modules/openai/'))).toBe(true);
    for (const details of Object.values(metafile.inputs)) {
      for (const imported of details.imports) expect(imported.external ?? false).toBe(false);
    }
  });

  it('bundles @switchboard/core/testing (the kit for apps’ tests) for the browser', async () => {
    const metafile = await bundleForBrowser({
      stdin: {
        contents: "export * from '@switchboard/core/testing';",
        resolveDir: repositoryRoot,
        loader: 'ts',
        sourcefile: 'entry.ts',
      },
      absWorkingDir: repositoryRoot,
    });

    expect(nodeBuiltinImports(metafile)).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('packages/core/src/testing/linked-mcp-server.ts');
    expect(inputs.filter((input) => input.includes('@modelcontextprotocol/server'))).toEqual([]);
  });

  it('fails with esbuild’s message when a module imports a Node built-in', async () => {
    await expect(
      bundleForBrowser({
        stdin: {
          contents: "import { readFileSync } from 'node:fs'; export const read = readFileSync;",
          resolveDir: coreDirectory,
          loader: 'ts',
          sourcefile: 'uses-fs.ts',
        },
      }),
    ).rejects.toThrow(/The browser build failed:[\s\S]*node:fs/);
  });

  it('reports a Node built-in left external', async () => {
    const metafile = await bundleForBrowser({
      stdin: {
        contents: "import { createHash } from 'crypto'; export const hash = createHash;",
        resolveDir: coreDirectory,
        loader: 'ts',
        sourcefile: 'uses-crypto.ts',
      },
      external: ['crypto'],
    });
    expect(nodeBuiltinImports(metafile)).toEqual([expect.stringMatching(/ → crypto$/)]);
  });
});
