import { createServer } from 'node:net';
import { findFreePort } from '@switchboard/fixtures';

/** The port to listen on, and whether it is the one that was asked for. */
export interface PickedPort {
  port: number;
  /** The preferred port, when it was taken and another one was picked instead. */
  taken?: number;
}

/**
 * Picks a TCP port on 127.0.0.1: `preferred` when it is free, otherwise (or when `preferred` is
 * absent or 0) a free port chosen by the OS. The port is released before this resolves, so
 * another process could still take it in between; callers start their server right away.
 */
export async function pickPort(preferred?: number): Promise<PickedPort> {
  if (preferred === undefined || preferred === 0) return { port: await findFreePort() };
  if (await isPortFree(preferred)) return { port: preferred };
  return { port: await findFreePort(), taken: preferred };
}

/** True when nothing listens on `port` at 127.0.0.1 (tested by binding it briefly). */
export async function isPortFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}
