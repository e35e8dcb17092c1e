import { describe, expect, it, vi } from 'vitest';
import { acceptsMessage, ProxyFrameTransport } from './proxy-frame-transport.ts';

const proxyOrigin = 'http://127.0.0.1:5174';

function fakeFrame(): Window & { postMessage: ReturnType<typeof vi.fn> } {
  return { postMessage: vi.fn() } as unknown as Window & { postMessage: ReturnType<typeof vi.fn> };
}

describe('acceptsMessage', () => {
  const frame = fakeFrame();
  const rpc = { jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} };

  it('takes JSON-RPC from the proxy frame at its origin', () => {
    expect(
      acceptsMessage({ source: frame, origin: proxyOrigin, data: rpc }, frame, proxyOrigin),
    ).toBe(true);
  });

  it('drops another window, another origin, the opaque origin and non-JSON-RPC data', () => {
    const other = fakeFrame();
    expect(
      acceptsMessage({ source: other, origin: proxyOrigin, data: rpc }, frame, proxyOrigin),
    ).toBe(false);
    expect(
      acceptsMessage(
        { source: frame, origin: 'http://127.0.0.1:5173', data: rpc },
        frame,
        proxyOrigin,
      ),
    ).toBe(false);
    expect(acceptsMessage({ source: frame, origin: 'null', data: rpc }, frame, proxyOrigin)).toBe(
      false,
    );
    expect(
      acceptsMessage({ source: null, origin: proxyOrigin, data: rpc }, frame, proxyOrigin),
    ).toBe(false);
    for (const data of [null, 'text', { jsonrpc: '1.0' }, { method: 'x' }]) {
      expect(acceptsMessage({ source: frame, origin: proxyOrigin, data }, frame, proxyOrigin)).toBe(
        false,
      );
    }
  });
});

describe('ProxyFrameTransport', () => {
  it('posts with the proxy origin as the target, never *', async () => {
    const frame = fakeFrame();
    const transport = new ProxyFrameTransport(frame, proxyOrigin);
    await transport.send({ jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(frame.postMessage).toHaveBeenCalledWith(
      { jsonrpc: '2.0', method: 'ping', id: 1 },
      proxyOrigin,
    );
  });

  it('refuses a wildcard or opaque target origin', () => {
    expect(() => new ProxyFrameTransport(fakeFrame(), '*')).toThrow(/explicit origin/);
    expect(() => new ProxyFrameTransport(fakeFrame(), 'null')).toThrow(/explicit origin/);
  });

  it('hands over only the proxy frame’s messages, and none after close', async () => {
    const frame = fakeFrame();
    const transport = new ProxyFrameTransport(frame, proxyOrigin);
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    const post = (source: unknown, origin: string, data: unknown): void => {
      window.dispatchEvent(new MessageEvent('message', { source: source as Window, origin, data }));
    };
    post(frame, proxyOrigin, { jsonrpc: '2.0', method: 'a' });
    post(window, proxyOrigin, { jsonrpc: '2.0', method: 'forged-source' });
    post(frame, 'http://evil.example', { jsonrpc: '2.0', method: 'forged-origin' });
    await transport.close();
    post(frame, proxyOrigin, { jsonrpc: '2.0', method: 'after-close' });
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'a' }]);
  });
});
