import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from './free-port.ts';

/** Options of {@link startEverythingServer}. */
export interface EverythingServerOptions {
  /** `streamableHttp` (endpoint `/mcp`) or legacy `sse` (endpoint `/sse`). Default `streamableHttp`. */
  transport?: 'streamableHttp' | 'sse';
  /** TCP port on 127.0.0.1; default a free one. */
  port?: number;
  /** Time to wait for the port to accept connections, in ms. Default 20 000. */
  startTimeoutMs?: number;
}

/** A running `@modelcontextprotocol/server-everything` child process. */
export interface EverythingServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
  port: number;
  /** Output of the server so far (stdout and stderr), for diagnostics. */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 3 s). Idempotent. */
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/**
 * Starts the pinned `@modelcontextprotocol/server-everything` on 127.0.0.1 (through the
 * `loopback.mjs` preload, since the server binds all interfaces by default) and resolves once it
 * accepts connections.
 *
 * @throws Error when the process exits early or the port does not open in time.
 */
export async function startEverythingServer(
  options: EverythingServerOptions = {},
): Promise<EverythingServer> {
  const transport = options.transport ?? 'streamableHttp';
  const port = options.port ?? (await findFreePort());
  const entry = join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
  let output = '';
  const child = spawn(
    process.execPath,
    ['--import', join(here, 'loopback.mjs'), entry, transport],
    // A minimal environment: the server's `get-env` tool returns it, so no secret of ours may be in it.
    { env: childEnvironment(port), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
  const close = () => stopProcess(child);
  try {
    await waitForPort(port, child, options.startTimeoutMs ?? 20_000);
  } catch (error) {
    await close();
    throw new Error(`server-everything did not start: ${(error as Error).message}\n${output}`, {
      cause: error,
    });
  }
  return {
    url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`,
    port,
    output: () => output,
    close,
  };
}

function childEnvironment(port: number): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { PORT: String(port) };
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) environment[name] = value;
  }
  return environment;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`port ${port} did not open within ${timeoutMs} ms`);
}

/** SIGTERM, then SIGKILL if the process is still there after 3 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
