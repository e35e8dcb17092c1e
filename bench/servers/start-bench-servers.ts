import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Requests the servers received, as counted in the server process. */
export interface RequestCounts {
  /** HTTP requests to the demo MCP server (any route, OPTIONS preflights included). */
  demo: number;
  /** Model requests to the scripted model server. */
  model: number;
  /** Demo server requests by `HTTP-method json-rpc-method`. */
  byMethod: Record<string, number>;
}

/** The bench servers running in a child process (see `bench-servers.ts`). */
export interface BenchServers {
  /** Demo MCP server base URL. */
  demoUrl: string;
  /** 2026-07-28 endpoint of the demo server. */
  modernUrl: string;
  /** 2025-era endpoint of the demo server. */
  legacyUrl: string;
  /** Scripted model server base URL (OpenAI SDKs use `${modelUrl}/v1`). */
  modelUrl: string;
  /** Filler tools on the demo server (8 named tools come on top). */
  toolCount: number;
  pageSize: number;
  /** Process id of the server child. */
  pid: number;
  counts(): Promise<RequestCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const entry = fileURLToPath(new URL('./bench-servers.ts', import.meta.url));

function waitForMessage<T>(child: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`bench servers: no "${type}" message within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return;
      cleanup();
      resolve(message as T);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`bench servers exited early (code ${code})`));
    };
    function cleanup(): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Forks the demo MCP server (`toolCount` fillers, `pageSize` per page) and the scripted model
 * server into one child process on 127.0.0.1 and resolves once both listen.
 */
export async function startBenchServers(
  options: { toolCount?: number; pageSize?: number; keepAliveTimeoutMs?: number } = {},
): Promise<BenchServers> {
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      BENCH_TOOL_COUNT: String(options.toolCount ?? 1000),
      BENCH_PAGE_SIZE: String(options.pageSize ?? 20),
      ...(options.keepAliveTimeoutMs === undefined
        ? {}
        : { BENCH_KEEP_ALIVE_MS: String(options.keepAliveTimeoutMs) }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await waitForMessage<{
    demo: { url: string; modernUrl: string; legacyUrl: string };
    model: { url: string };
    toolCount: number;
    pageSize: number;
  }>(child, 'ready', 60_000);
  let closed: Promise<void> | undefined;
  return {
    demoUrl: ready.demo.url,
    modernUrl: ready.demo.modernUrl,
    legacyUrl: ready.demo.legacyUrl,
    modelUrl: ready.model.url,
    toolCount: ready.toolCount,
    pageSize: ready.pageSize,
    pid: child.pid ?? -1,
    async counts() {
      const reply = waitForMessage<RequestCounts>(child, 'counts', 10_000);
      child.send({ type: 'counts' });
      const { demo, model, byMethod } = await reply;
      return { demo, model, byMethod };
    },
    async reset() {
      const reply = waitForMessage(child, 'reset', 10_000);
      child.send({ type: 'reset' });
      await reply;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.disconnect();
      });
      return closed;
    },
  };
}

/** Request counts accrued between two {@link RequestCounts} snapshots. */
export function countsDelta(after: RequestCounts, before: RequestCounts): RequestCounts {
  const byMethod: Record<string, number> = {};
  for (const [key, value] of Object.entries(after.byMethod)) {
    const delta = value - (before.byMethod[key] ?? 0);
    if (delta !== 0) byMethod[key] = delta;
  }
  return { demo: after.demo - before.demo, model: after.model - before.model, byMethod };
}
