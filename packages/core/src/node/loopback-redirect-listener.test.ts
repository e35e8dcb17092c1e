import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { startLoopbackRedirectListener } from './loopback-redirect-listener.ts';

/** A raw HTTP request (so the Host header can be forged). */
function send(url: string, options: { method?: string; host?: string } = {}) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const target = new URL(url);
      const outgoing = request(
        {
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: options.method ?? 'GET',
          headers: options.host === undefined ? {} : { host: options.host },
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    },
  );
}

describe('startLoopbackRedirectListener', () => {
  it('binds 127.0.0.1 on an ephemeral port and hands callbacks to onCallback', async () => {
    const onCallback = vi.fn(async (query: URLSearchParams) => query.get('code') === 'good');
    const listener = await startLoopbackRedirectListener({ onCallback });
    try {
      expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const ok = await send(`${listener.redirectUrl}?code=good&state=s`);
      expect(ok.status).toBe(200);
      expect(ok.body).toContain('You can close this tab');
      expect(ok.body).not.toContain('good');
      expect(ok.headers['cache-control']).toBe('no-store');
      expect(ok.headers['referrer-policy']).toBe('no-referrer');
      const bad = await send(`${listener.redirectUrl}?code=<script>&state=s`);
      expect(bad.status).toBe(400);
      expect(bad.body).toContain('did not complete');
      expect(bad.body).not.toContain('<script>');
      expect(onCallback).toHaveBeenCalledTimes(2);
      expect(onCallback.mock.calls[0]?.[0].get('state')).toBe('s');
    } finally {
      await listener.close();
    }
  });

  it('answers 404 elsewhere, 405 for other methods and 421 for another Host', async () => {
    const onCallback = vi.fn(() => true);
    const listener = await startLoopbackRedirectListener({ onCallback, callbackPath: '/oauth' });
    try {
      const origin = new URL(listener.redirectUrl).origin;
      expect(listener.redirectUrl).toBe(`${origin}/oauth`);
      expect((await send(`${origin}/favicon.ico`)).status).toBe(404);
      expect((await send(`${origin}/oauth?code=x`, { method: 'POST' })).status).toBe(405);
      expect((await send(`${origin}/oauth?code=x`, { host: 'evil.example' })).status).toBe(421);
      expect(onCallback).not.toHaveBeenCalled();
    } finally {
      await listener.close();
      await listener.close();
    }
  });

  it('uses the given port and reports one in use as connection_refused', async () => {
    const first = await startLoopbackRedirectListener({ onCallback: () => false });
    const port = Number(new URL(first.redirectUrl).port);
    try {
      await expect(
        startLoopbackRedirectListener({ port, onCallback: () => false }),
      ).rejects.toMatchObject({ code: 'connection_refused' });
    } finally {
      await first.close();
    }
    const again = await startLoopbackRedirectListener({ port, onCallback: () => false });
    expect(again.redirectUrl).toBe(`http://127.0.0.1:${port}/callback`);
    await again.close();
  });

  it('rejects a callback path without a leading slash', async () => {
    await expect(
      startLoopbackRedirectListener({ callbackPath: 'callback', onCallback: () => false }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
