import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startLoopbackRedirectListener,
  type LoopbackRedirectListener,
} from './loopback-redirect-listener.ts';

const listeners: LoopbackRedirectListener[] = [];

afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

async function listen(
  onCallback: (query: URLSearchParams) => boolean | Promise<boolean> = () => true,
) {
  const listener = await startLoopbackRedirectListener({ onCallback });
  listeners.push(listener);
  return { listener, port: Number(new URL(listener.redirectUrl).port) };
}

/** Sends `raw` on a TCP connection to `host:port`; resolves with the status line, or why not. */
function rawRequest(host: string, port: number, raw: string, waitMs = 2_000): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const socket = connect(port, host, () => socket.write(raw));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no answer within ${waitMs} ms`);
    }, waitMs);
    socket.on('data', (chunk) => {
      data += String(chunk);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(data.split('\r\n')[0] ?? '');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(`error ${error.code ?? error.message}`);
    });
  });
}

describe('startLoopbackRedirectListener (adversarial)', () => {
  it('answers a request target that is not a URL with 400, without an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { port } = await listen();
      for (const target of ['http://[', 'http://x:99999/callback', 'http://%zz/']) {
        const status = await rawRequest(
          '127.0.0.1',
          port,
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        );
        expect(status, target).toBe('HTTP/1.1 400 Bad Request');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('answers a callback whose handler throws with the "not completed" page', async () => {
    const { listener } = await listen(() => {
      throw new Error('boom');
    });
    const response = await fetch(`${listener.redirectUrl}?state=s&code=c`);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('did not complete');
    expect(page).not.toContain('boom');
    expect(page).not.toContain('code=c');
  });

  it('is reachable on 127.0.0.1 only: not on ::1 nor on any other interface address', async () => {
    const { port } = await listen();
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry !== undefined && entry.address !== '127.0.0.1')
      .map((entry) => entry?.address ?? '');
    for (const address of ['::1', ...others]) {
      const status = await rawRequest(
        address,
        port,
        `GET /callback?state=s&code=c HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        1_000,
      );
      expect(status, address).toMatch(/^error /);
    }
  });

  it('closes promptly with a half-sent request still open, and refuses connections after', async () => {
    const { listener, port } = await listen();
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /callback?state=s HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`); // no blank line
    socket.on('error', () => undefined);
    const started = Date.now();
    await listener.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await rawRequest('127.0.0.1', port, 'GET / HTTP/1.1\r\n\r\n', 1_000)).toMatch(/^error /);
    socket.destroy();
  });

  it('never echoes the query (code, state, error_description) in its pages', async () => {
    const { listener } = await listen(() => false);
    const marker = '<script>alert(1)</script>';
    const response = await fetch(
      `${listener.redirectUrl}?state=s&error=x&error_description=${encodeURIComponent(marker)}`,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).not.toContain('alert(1)');
  });
});
