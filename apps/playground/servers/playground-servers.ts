import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startDemoServer,
  startEverythingServer,
  startScriptedModelServer,
} from '@switchboard/fixtures';
import { build, createServer, preview, type InlineConfig, type LogLevel } from 'vite';
import { pickPort } from './pick-port.ts';
import { startSandboxProxyServer } from './sandbox-proxy-server.ts';

/** Options of {@link startPlaygroundServers}. Every port is a preference: a taken one is replaced. */
export interface PlaygroundServersOptions {
  /**
   * How the page is served:
   * - `dev` (default): the Vite dev server, with hot reload; what `npm start` runs.
   * - `preview`: the page is built once (`vite build` into a temporary folder, removed on close)
   *   and served by `vite preview` with a strict Content-Security-Policy: the production bundle,
   *   with much faster page loads (the e2e tests use it).
   */
  mode?: 'dev' | 'preview';
  /** Port of the page server. Default: a free port. */
  playgroundPort?: number;
  /** Port of the everything MCP server (Streamable HTTP at `/mcp`). Default: a free port. */
  mcpPort?: number;
  /** Port of the scripted model server (OpenAI Chat Completions at `/v1`). Default: a free port. */
  modelPort?: number;
  /**
   * Port of the Switchboard demo MCP server (`/modern/mcp`, `/legacy/mcp`, `/legacy/sse`,
   * `/control/*`). Default: a free port.
   */
  demoPort?: number;
  /**
   * Port of the demo server's OAuth 2.1 authorization server (it protects
   * `${demo}/protected/mcp`). Default: a free port.
   */
  authPort?: number;
  /** Port of the MCP Apps sandbox proxy page (a second origin). Default: a free port. */
  sandboxPort?: number;
  /** Vite's log level. Default `warn`. */
  logLevel?: LogLevel;
}

/** A preferred port that was taken, and the port used instead. */
export interface PortFallback {
  service: 'playground' | 'mcp' | 'model' | 'demo' | 'auth' | 'sandbox';
  wanted: number;
  used: number;
}

/** The running playground: the page, the MCP servers and the scripted model, all on 127.0.0.1. */
export interface PlaygroundServers {
  urls: {
    /** The page to open, e.g. `http://127.0.0.1:5173/`. */
    playground: string;
    /** The everything server's MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
    mcp: string;
    /** The scripted model's OpenAI-compatible base URL, e.g. `http://127.0.0.1:3002/v1`. */
    modelBaseUrl: string;
    /**
     * The demo MCP server's base URL, e.g. `http://127.0.0.1:3003`: its 2026-07-28 endpoint is
     * `${demo}/modern/mcp`, its 2025-era ones `${demo}/legacy/mcp` and `${demo}/legacy/sse`, its
     * fault switches `${demo}/control/faults`.
     */
    demo: string;
    /**
     * The demo server's OAuth-protected MCP endpoint, `${demo}/protected/mcp` (2026-07-28, the
     * demo tools plus `reset_demo_data`, which needs the `mcp:admin` scope).
     */
    protectedMcp: string;
    /**
     * Issuer URL of the authorization server protecting `protectedMcp`, e.g.
     * `http://127.0.0.1:3004` (consent page, dynamic client registration, PKCE S256).
     */
    authorizationServer: string;
    /**
     * The MCP Apps sandbox proxy page on its own loopback port, e.g.
     * `http://127.0.0.1:3005/sandbox.html` (framed by the playground page only).
     */
    sandboxProxy: string;
  };
  /** Preferred ports that were taken. */
  fallbacks: PortFallback[];
  /** Stops the page server, the model server and both MCP servers. Idempotent. */
  close(): Promise<void>;
}

/**
 * Sent with the built page (`preview` mode): no inline script, styles from the page's own
 * origin. `connect-src` stays open because the user may point the page at any MCP server or
 * model endpoint. The dev server cannot use it (Vite injects inline scripts for hot reload).
 *
 * `'unsafe-eval'` is there for one reason: the generated forms (`ElicitationForm` of
 * `@switchboard/react` and the Tool runner) validate with `@rjsf/validator-ajv8`, and ajv
 * compiles each schema with `new Function`. Nothing else needs it (zod's JIT is off, see
 * src/setup-zod.ts, and the MCP client validates with an eval-free validator). It can go once
 * the forms take an eval-free rjsf validator.
 */
export const playgroundContentSecurityPolicy = (sandboxOrigin: string): string =>
  [
    "default-src 'self'",
    "script-src 'self' 'unsafe-eval'",
    "style-src 'self'",
    // `blob:`: thumbnails of attached files are object URLs of their stored bytes (this origin's only).
    "img-src 'self' data: blob:",
    "media-src 'self' data:",
    "connect-src 'self' http: https:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    // The MCP Apps sandbox proxy (another origin; the views live inside it).
    `frame-src ${sandboxOrigin}`,
  ].join('; ');

const appRoot = fileURLToPath(new URL('..', import.meta.url));
const configFile = fileURLToPath(new URL('../vite.config.ts', import.meta.url));

/**
 * Starts everything the playground page needs, all bound to 127.0.0.1:
 * `@modelcontextprotocol/server-everything` (a child process, Streamable HTTP, 2025 era), the
 * Switchboard demo MCP server (in this process: a 2026-07-28 endpoint with MRTR elicitation,
 * 2025-era endpoints with pushed elicitation, and an OAuth-protected endpoint with its test
 * authorization server on a port of its own), the scripted model server (offline, no real LLM)
 * and the page server (Vite). The page learns the server URLs through Vite `define`
 * (`import.meta.env.VITE_SWITCHBOARD_MCP_URL`, `VITE_SWITCHBOARD_DEMO_URL`,
 * `VITE_SWITCHBOARD_DEMO_PROTECTED_URL`, `VITE_SWITCHBOARD_AUTHORIZATION_SERVER_URL` and
 * `VITE_SWITCHBOARD_MODEL_BASE_URL`).
 *
 * When a start fails, whatever already started is stopped before the error is rethrown.
 */
export async function startPlaygroundServers(
  options: PlaygroundServersOptions = {},
): Promise<PlaygroundServers> {
  const fallbacks: PortFallback[] = [];
  const closers: (() => Promise<void>)[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // Last started first: the page server goes before the servers it talks to.
      for (const closer of closers.reverse()) await closer().catch(() => undefined);
    })();
    return closing;
  };

  try {
    const mcpPort = await pickPort(options.mcpPort);
    if (mcpPort.taken !== undefined) {
      fallbacks.push({ service: 'mcp', wanted: mcpPort.taken, used: mcpPort.port });
    }
    const everything = await startEverythingServer({
      transport: 'streamableHttp',
      port: mcpPort.port,
    });
    closers.push(() => everything.close());

    const modelPort = await pickPort(options.modelPort);
    if (modelPort.taken !== undefined) {
      fallbacks.push({ service: 'model', wanted: modelPort.taken, used: modelPort.port });
    }
    const model = await startScriptedModelServer({ port: modelPort.port });
    closers.push(() => model.close());
    const modelBaseUrl = `${model.url}/v1`;

    const demoPort = await pickPort(options.demoPort);
    if (demoPort.taken !== undefined) {
      fallbacks.push({ service: 'demo', wanted: demoPort.taken, used: demoPort.port });
    }
    const authPort = await pickPort(options.authPort);
    if (authPort.taken !== undefined) {
      fallbacks.push({ service: 'auth', wanted: authPort.taken, used: authPort.port });
    }
    const demo = await startDemoServer({ port: demoPort.port, oauth: { port: authPort.port } });
    closers.push(() => demo.close());
    const protectedMcp = demo.protectedUrl ?? `${demo.url}/protected/mcp`;
    const authorizationServer = demo.authorizationServerUrl ?? '';

    const sandboxPort = await pickPort(options.sandboxPort);
    if (sandboxPort.taken !== undefined) {
      fallbacks.push({ service: 'sandbox', wanted: sandboxPort.taken, used: sandboxPort.port });
    }
    const sandbox = await startSandboxProxyServer(sandboxPort.port);
    closers.push(() => sandbox.close());
    const sandboxOrigin = new URL(sandbox.url).origin;

    const wantedPagePort = options.playgroundPort ?? (await pickPort()).port;
    const config: InlineConfig = {
      root: appRoot,
      configFile,
      clearScreen: false,
      logLevel: options.logLevel ?? 'warn',
      define: {
        'import.meta.env.VITE_SWITCHBOARD_MCP_URL': JSON.stringify(everything.url),
        'import.meta.env.VITE_SWITCHBOARD_MODEL_BASE_URL': JSON.stringify(modelBaseUrl),
        'import.meta.env.VITE_SWITCHBOARD_DEMO_URL': JSON.stringify(demo.url),
        'import.meta.env.VITE_SWITCHBOARD_DEMO_PROTECTED_URL': JSON.stringify(protectedMcp),
        'import.meta.env.VITE_SWITCHBOARD_AUTHORIZATION_SERVER_URL':
          JSON.stringify(authorizationServer),
        'import.meta.env.VITE_SWITCHBOARD_SANDBOX_PROXY_URL': JSON.stringify(sandbox.url),
      },
    };
    const pagePort =
      options.mode === 'preview'
        ? await startPreview(config, wantedPagePort, closers, sandboxOrigin)
        : await startDev(config, wantedPagePort, closers);
    sandbox.allowFrameAncestors([`http://127.0.0.1:${pagePort}`, `http://localhost:${pagePort}`]);
    if (pagePort !== wantedPagePort) {
      fallbacks.push({ service: 'playground', wanted: wantedPagePort, used: pagePort });
    }

    return {
      urls: {
        playground: `http://127.0.0.1:${pagePort}/`,
        mcp: everything.url,
        modelBaseUrl,
        demo: demo.url,
        protectedMcp,
        authorizationServer,
        sandboxProxy: sandbox.url,
      },
      fallbacks,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Starts the Vite dev server; resolves with the port it listens on. */
async function startDev(
  config: InlineConfig,
  port: number,
  closers: (() => Promise<void>)[],
): Promise<number> {
  const server = await createServer({
    ...config,
    server: { host: '127.0.0.1', port, strictPort: false },
  });
  closers.push(() => server.close());
  await server.listen();
  return listeningPort(server.httpServer?.address(), port);
}

/** Builds the page into a temporary folder and serves it with `vite preview`. */
async function startPreview(
  config: InlineConfig,
  port: number,
  closers: (() => Promise<void>)[],
  sandboxOrigin: string,
): Promise<number> {
  const outDir = await mkdtemp(join(tmpdir(), 'switchboard-playground-'));
  closers.push(() => rm(outDir, { recursive: true, force: true }));
  await build({ ...config, build: { outDir, emptyOutDir: true, sourcemap: false } });
  const server = await preview({
    ...config,
    build: { outDir },
    preview: {
      host: '127.0.0.1',
      port,
      strictPort: false,
      headers: { 'Content-Security-Policy': playgroundContentSecurityPolicy(sandboxOrigin) },
    },
  });
  closers.push(() => server.close());
  return listeningPort(server.httpServer.address(), port);
}

function listeningPort(address: AddressInfo | string | null | undefined, fallback: number): number {
  return typeof address === 'object' && address !== null ? address.port : fallback;
}
