/**
 * The consumer check (`npm run test:consumer`, part of `npm test`): Switchboard as a user meets
 * it. Packs `@switchboard/core`, `@switchboard/react`, `@switchboard/redis` and
 * `@switchboard/postgres`, checks what the tarballs hold (no test,
 * fixture, server or source file) with publint and arethetypeswrong, installs them into fresh
 * projects outside this repository (not workspaces), and there
 * 1. runs examples/node-agent under plain `node` against the demo MCP server over HTTP and the
 *    scripted model server: both runs complete, one through a zod tool, one through an MCP tool;
 *    then reaches the demo server's legacy HTTP+SSE endpoint through the opt-in
 *    `@switchboard/core/legacy-sse` entry (projects/legacy-sse.mjs);
 * 2. type-checks a Node-only consumer (no DOM lib, module nodenext, strict, skipLibCheck false),
 *    and legacy-sse.mjs with checkJs;
 * 3. runs a tool written with zod 3.25's `zod/v4` under plain node, and sees a zod 3 schema
 *    refused with a clear error;
 * 4. type-checks examples/react-chat plus every entry point (module nodenext, then
 *    moduleResolution bundler; strict, skipLibCheck false), `vite build`s it, serves the build
 *    and drives it in Chromium: a message is answered through a tool call and an approval, with
 *    no console error;
 * 5. runs and type-checks a server-side consumer of the Redis and PostgreSQL stores (below).
 * Every server binds 127.0.0.1 and is stopped at the end; the temporary projects are removed.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startDemoServer,
  startPostgresServer,
  startRedisServer,
  startScriptedModelServer,
} from '@switchboard/fixtures';
import { chatInChromium } from './chat-in-chromium.ts';
import { lintPackages, packPackages, type PackedPackage } from './pack.ts';
import { npmInstall, run } from './shell.ts';
import { serveDirectory } from './static-server.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const projects = fileURLToPath(new URL('./projects', import.meta.url));
/** Versions of the consumer's own tools; those the repository uses, so npm's cache has them. */
const TYPESCRIPT = 'typescript@6.0.3';
const TYPES_NODE = '@types/node@20.19.43';

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function step<T>(name: string, body: () => Promise<T>): Promise<T> {
  const started = Date.now();
  process.stdout.write(`• ${name} … `);
  const value = await body();
  console.log(`ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return value;
}

/** A fresh project in `work` with the given example's files (no node_modules, no dist). */
async function freshProject(work: string, name: string, example?: string): Promise<string> {
  const directory = join(work, name);
  if (example === undefined) {
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  } else {
    await cp(join(root, 'examples', example), directory, {
      recursive: true,
      filter: (source) => !/node_modules|[\\/]dist([\\/]|$)/.test(source),
    });
  }
  return directory;
}

async function tsc(directory: string, config: object, label: string): Promise<void> {
  await writeFile(join(directory, `tsconfig.${label}.json`), JSON.stringify(config, null, 2));
  await run(join(directory, 'node_modules/.bin/tsc'), ['-p', `tsconfig.${label}.json`], {
    cwd: directory,
  });
}

const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022' };
/** A Node project's JavaScript checked as TypeScript (no DOM lib, module nodenext). */
const nodeCheckJs = {
  ...strict,
  allowJs: true,
  checkJs: true,
  module: 'nodenext',
  lib: ['ES2023'],
  types: ['node'],
};

async function nodeConsumer(work: string, core: PackedPackage, urls: Urls): Promise<string> {
  const directory = await freshProject(work, 'node-agent', 'node-agent');
  await step('node consumer: npm install (core tarball, openai, zod, typescript)', () =>
    npmInstall(directory, [core.tarball, TYPESCRIPT, TYPES_NODE, '@anthropic-ai/sdk@^1.0.0']),
  );
  const { stdout } = await step('node consumer: examples/node-agent under plain node', () =>
    run(process.execPath, ['agent.mjs'], {
      cwd: directory,
      env: { OPENAI_BASE_URL: urls.model, MCP_URL: urls.mcp },
      timeoutMs: 60_000,
    }),
  );
  for (const expected of ['→ add', '← 5', '→ read_file', '[completed]']) {
    if (!stdout.includes(expected))
      throw new Error(`node-agent printed no "${expected}":\n${stdout}`);
  }
  if (stdout.split('[completed]').length !== 3) throw new Error(`Two runs expected:\n${stdout}`);
  await cp(join(projects, 'legacy-sse.mjs'), join(directory, 'legacy-sse.mjs'));
  const legacy = await step('node consumer: @switchboard/core/legacy-sse under plain node', () =>
    run(process.execPath, ['legacy-sse.mjs'], {
      cwd: directory,
      env: { MCP_SSE_URL: urls.legacySse },
      timeoutMs: 30_000,
    }),
  );
  if (!legacy.stdout.includes('legacy SSE: get_weather answered over sse')) {
    throw new Error(`legacy-sse.mjs printed no answer:\n${legacy.stdout}`);
  }
  await cp(join(projects, 'node-only.ts'), join(directory, 'node-only.ts'));
  await step(
    'node consumer: tsc (+ checkJs), no DOM lib, module nodenext, skipLibCheck false',
    () =>
      tsc(
        directory,
        {
          compilerOptions: nodeCheckJs,
          files: ['node-only.ts', 'legacy-sse.mjs'],
        },
        'node-only',
      ),
  );
  return `${stdout}${legacy.stdout}`;
}

async function zod3Consumer(work: string, core: PackedPackage): Promise<string> {
  const directory = await freshProject(work, 'zod3');
  await step('zod 3.25 consumer: npm install (core tarball, zod@3.25.76)', () =>
    npmInstall(directory, [core.tarball, 'zod@3.25.76']),
  );
  await cp(join(projects, 'zod3.mjs'), join(directory, 'zod3.mjs'));
  const { stdout } = await step(
    'zod 3.25 consumer: a zod/v4 tool runs, a zod 3 schema is refused',
    () => run(process.execPath, ['zod3.mjs'], { cwd: directory, timeoutMs: 30_000 }),
  );
  return stdout;
}

async function reactConsumer(work: string, packed: PackedPackage[], urls: Urls): Promise<string> {
  const directory = await freshProject(work, 'react-chat', 'react-chat');
  await step('react consumer: npm install (both tarballs, react, vite, typescript, …)', () =>
    npmInstall(directory, [
      ...packed.map((entry) => entry.tarball),
      '@anthropic-ai/sdk@^1.0.0',
      // With skipLibCheck false a browser app needs Node's types too: the MCP SDK's declarations
      // (which ours import) mention Buffer. README "Install" says so.
      TYPES_NODE,
    ]),
  );
  await cp(join(projects, 'all-entries.tsx'), join(directory, 'src', 'all-entries.tsx'));
  const react = {
    ...strict,
    jsx: 'react-jsx',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: ['vite/client', 'node'],
    allowImportingTsExtensions: true,
  };
  await step('react consumer: tsc, module nodenext, skipLibCheck false', () =>
    tsc(
      directory,
      { compilerOptions: { ...react, module: 'nodenext' }, include: ['src'] },
      'nodenext',
    ),
  );
  await step('react consumer: tsc, moduleResolution bundler, skipLibCheck false', () =>
    tsc(
      directory,
      {
        compilerOptions: { ...react, module: 'esnext', moduleResolution: 'bundler' },
        include: ['src'],
      },
      'bundler',
    ),
  );
  await rm(join(directory, 'src', 'all-entries.tsx'));
  await step('react consumer: vite build', () =>
    run(join(directory, 'node_modules/.bin/vite'), ['build'], {
      cwd: directory,
      env: { VITE_OPENAI_BASE_URL: urls.model, VITE_MCP_URL: urls.mcp },
    }),
  );
  const site = await serveDirectory(join(directory, 'dist'));
  try {
    return await step(
      'react consumer: chat in Chromium (tool call + approval, no console error)',
      () => chatInChromium(site.url),
    );
  } finally {
    await site.close();
  }
}

/**
 * 5. A server-side consumer of `@switchboard/redis` and `@switchboard/postgres`: installs the
 *    core, redis and postgres tarballs, runs projects/server-stores.mjs under plain node against
 *    throwaway Redis and PostgreSQL servers (an agent run stored in PostgreSQL, tools listed from
 *    Redis by a second set of stores), then type-checks it (checkJs, module nodenext).
 */
async function serverStoresConsumer(
  work: string,
  packed: PackedPackage[],
  urls: Urls,
): Promise<string> {
  const directory = await freshProject(work, 'server-stores');
  await step('server stores consumer: npm install (core, redis, postgres tarballs, zod, …)', () =>
    npmInstall(directory, [
      ...packed.map((entry) => entry.tarball),
      'zod@^4.0.0',
      TYPESCRIPT,
      TYPES_NODE,
    ]),
  );
  await cp(join(projects, 'server-stores.mjs'), join(directory, 'server-stores.mjs'));
  const [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer()]);
  try {
    const { stdout } = await step(
      'server stores consumer: an agent on PostgreSQL + Redis under plain node',
      () =>
        run(process.execPath, ['server-stores.mjs'], {
          cwd: directory,
          env: {
            DATABASE_URL: postgres.connectionString,
            REDIS_URL: redis.url,
            MCP_URL: urls.mcp,
          },
          timeoutMs: 60_000,
        }),
    );
    for (const expected of [
      'first: completed',
      'tools, cached',
      '1 run, thread "read notes.txt"',
    ]) {
      if (!stdout.includes(expected)) {
        throw new Error(`server-stores printed no "${expected}":\n${stdout}`);
      }
    }
    await step('server stores consumer: tsc --checkJs, module nodenext, skipLibCheck false', () =>
      tsc(
        directory,
        {
          compilerOptions: nodeCheckJs,
          files: ['server-stores.mjs'],
        },
        'server-stores',
      ),
    );
    return stdout;
  } finally {
    await Promise.allSettled([redis.close(), postgres.close()]);
  }
}

/**
 * 6. A consumer of `@switchboard/restate`: installs the core, postgres and restate tarballs with
 *    the Restate SDK (the peer) and type-checks projects/durable-agent.mts — a worker's virtual
 *    object and a front's `restateAgent` served with `agentRequestHandler` — under module
 *    nodenext with skipLibCheck false. Not run: the Restate SDK needs Node 22 and a
 *    restate-server (packages/restate's own tests run both).
 */
async function durableConsumer(work: string, packed: PackedPackage[]): Promise<void> {
  const directory = await freshProject(work, 'durable-agent');
  await step('durable consumer: npm install (core, postgres, restate tarballs, restate-sdk)', () =>
    npmInstall(directory, [
      ...packed.map((entry) => entry.tarball),
      '@restatedev/restate-sdk@1.17.2',
      'zod@^4.0.0',
      TYPESCRIPT,
      TYPES_NODE,
    ]),
  );
  await cp(join(projects, 'durable-agent.mts'), join(directory, 'durable-agent.mts'));
  await step('durable consumer: tsc, module nodenext, skipLibCheck false', () =>
    tsc(
      directory,
      {
        compilerOptions: {
          ...strict,
          module: 'nodenext',
          lib: ['ES2023'],
          types: ['node'],
        },
        files: ['durable-agent.mts'],
      },
      'durable-agent',
    ),
  );
}

interface Urls {
  model: string;
  mcp: string;
  /** The demo server's legacy HTTP+SSE endpoint (2024-11-05). */
  legacySse: string;
}

const work = await mkdtemp(join(tmpdir(), 'switchboard-consumers-'));
const model = await startScriptedModelServer();
const demo = await startDemoServer();
try {
  const urls: Urls = {
    model: `${model.url}/v1`,
    mcp: demo.modernUrl,
    legacySse: demo.legacySseUrl,
  };
  const packed = await step(
    'npm pack @switchboard/core, @switchboard/react, @switchboard/redis, @switchboard/postgres, @switchboard/restate (builds dist/)',
    () => packPackages(root, work),
  );
  for (const entry of packed) {
    console.log(
      `  ${entry.name}: ${kib(entry.size)} packed, ${kib(entry.unpackedSize)} unpacked, ${entry.files.length} files`,
    );
  }
  await step('publint --strict and attw --profile esm-only on every tarball', () =>
    lintPackages(root, packed),
  );
  const [core, react, redis, postgres, restate] = packed;
  if (
    core === undefined ||
    react === undefined ||
    redis === undefined ||
    postgres === undefined ||
    restate === undefined
  ) {
    throw new Error('a tarball is missing');
  }
  const nodeOutput = await nodeConsumer(work, core, urls);
  console.log(nodeOutput.trim().replace(/^/gm, '  | '));
  console.log((await zod3Consumer(work, core)).trim().replace(/^/gm, '  | '));
  const chat = await reactConsumer(work, [core, react], urls);
  console.log(chat.trim().replace(/^/gm, '  | '));
  const stores = await serverStoresConsumer(work, [core, redis, postgres], urls);
  console.log(stores.trim().replace(/^/gm, '  | '));
  await durableConsumer(work, [core, postgres, restate]);
  console.log('Consumer check passed.');
} finally {
  await Promise.allSettled([model.close(), demo.close()]);
  await rm(work, { recursive: true, force: true });
}
