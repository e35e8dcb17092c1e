import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sandboxProxyHtml } from '@switchboard/react/mcp-apps';

/** The running proxy page server. */
export interface SandboxProxyServer {
  /** The page, e.g. `http://127.0.0.1:3005/sandbox.html`. */
  url: string;
  /** Which page origins may frame the proxy (`frame-ancestors`); set once the page listens. */
  allowFrameAncestors(origins: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * Serves `@switchboard/react/mcp-apps`' sandbox proxy page at `/sandbox.html` on its own
 * loopback port: another origin than the playground page's, as MCP Apps requires (docs/mcp-apps.md,
 * "Serving the proxy"). `Content-Security-Policy: frame-ancestors` names the playground's
 * origin only, so no other page can frame it; until that origin is known it names none.
 */
export async function startSandboxProxyServer(port: number): Promise<SandboxProxyServer> {
  const html = sandboxProxyHtml();
  let ancestors = "'none'";
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/sandbox.html' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Not found.');
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `frame-ancestors ${ancestors}`,
      'x-content-type-options': 'nosniff',
    });
    response.end(request.method === 'HEAD' ? undefined : html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/sandbox.html`,
    allowFrameAncestors(origins) {
      ancestors = origins.length === 0 ? "'none'" : origins.join(' ');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
