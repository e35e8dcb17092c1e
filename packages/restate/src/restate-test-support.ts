import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ModelScript } from '@switchboard/fixtures';

/** The scripted model of the Restate tests: its answer depends on the conversation only. */
export const durableScript: ModelScript = (request) => {
  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  const user = request.messages[lastUser];
  const text = typeof user?.content === 'string' ? user.content : '';
  const results = request.messages.slice(lastUser).filter((message) => message.role === 'tool');
  if (text === 'pay then hold') {
    if (results.length === 0) {
      return { toolCalls: [{ name: 'pay', arguments: { amount: 5 }, id: 'call_pay' }] };
    }
    if (results.length === 1)
      return { toolCalls: [{ name: 'hold', arguments: {}, id: 'call_hold' }] };
    return { text: 'Paid and held.' };
  }
  if (text === 'transfer 7') {
    if (results.length === 0) {
      return { toolCalls: [{ name: 'transfer', arguments: { amount: 7 }, id: 'call_transfer' }] };
    }
    return { text: 'Transfer finished.' };
  }
  if (text === 'who am i') {
    if (results.length === 0) {
      return { toolCalls: [{ name: 'whoami', arguments: {}, id: 'call_whoami' }] };
    }
    return { text: 'Told.' };
  }
  return { text: `echo ${text}` };
};

/** The side effects the worker's tools report, by tool, as the call ids that made them. */
export interface EffectsServer {
  url: string;
  calls: Record<string, string[]>;
  /** Resolves at the next `hold` call; that call waits until {@link release}. */
  nextHold(): Promise<void>;
  /** Answers the waiting `hold` calls and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

/** Starts the effects server on 127.0.0.1. */
export async function startEffectsServer(): Promise<EffectsServer> {
  const calls: Record<string, string[]> = {};
  let holding = false;
  let released: () => void = () => undefined;
  let gate = Promise.resolve();
  let arrived: (() => void) | undefined;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => (body += part.toString('utf8')));
    request.on('end', () => {
      const path = (request.url ?? '/').slice(1);
      const { callId } = JSON.parse(body || '{}') as { callId?: string };
      (calls[path] ??= []).push(callId ?? '');
      if (path === 'hold') {
        arrived?.();
        arrived = undefined;
        const answer = () => response.end('ok');
        if (holding) void gate.then(answer);
        else answer();
        return;
      }
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    nextHold() {
      holding = true;
      gate = new Promise<void>((resolve) => (released = resolve));
      return new Promise<void>((resolve) => (arrived = resolve));
    },
    release() {
      holding = false;
      released();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A worker child process (see `restate-worker-test-support.ts`). */
export interface WorkerProcess {
  child: ChildProcess;
  /** kill -9, resolved once it exited. */
  kill(): Promise<void>;
}

/** Starts a worker on `port` with `environment`; resolves once it serves. */
export async function startWorker(
  port: number,
  environment: Record<string, string>,
): Promise<WorkerProcess> {
  const script = fileURLToPath(new URL('./restate-worker-test-support.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--conditions=@switchboard/source', '--import', 'tsx', script],
    {
      env: { ...process.env, ...environment, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker not ready in 60 s:\n${output}`)),
      60_000,
    );
    child.stdout?.on('data', (part: Buffer) => {
      output += part.toString('utf8');
      if (output.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (part: Buffer) => (output += part.toString('utf8')));
    if (process.env.RESTATE_WORKER_LOG === '1') {
      child.stdout?.pipe(process.stderr);
      child.stderr?.pipe(process.stderr);
    }
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}):\n${output}`));
    });
  });
  return {
    child,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A TCP proxy on 127.0.0.1 that hands each new connection to the next of `ports` in turn. */
export async function startRoundRobinProxy(
  ports: readonly number[],
): Promise<{ port: number; close(): Promise<void> }> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    const target = connect(ports[next++ % ports.length] ?? 0, '127.0.0.1');
    sockets.add(client);
    sockets.add(target);
    client.pipe(target).pipe(client);
    const end = () => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    client.on('error', end).on('close', end);
    target.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
