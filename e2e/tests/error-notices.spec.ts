import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addServer, expect, openPlayground, playgroundUrls, serverCard, test } from './fixtures.ts';

/**
 * A reverse proxy on 127.0.0.1 in front of the demo server that answers exactly as it does, but
 * no longer exposes `Mcp-Session-Id` to the page (CORS `Access-Control-Expose-Headers`): the
 * misconfigured server of issue 20, whose session id a browser cannot read.
 */
async function startSessionHidingProxy(target: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        const headers = { ...answer.headers };
        const exposed = headers['access-control-expose-headers'];
        if (typeof exposed === 'string') {
          headers['access-control-expose-headers'] = exposed
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name.toLowerCase() !== 'mcp-session-id')
            .join(', ');
        }
        outgoing.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}

test.describe('a server that hides Mcp-Session-Id from the page', () => {
  // The page's requests without a readable session id are answered 400 (and the SSE fallback
  // fails too): the browser logs those responses.
  test.use({
    expectedConsoleErrors: /^Failed to load resource: the server responded with a status of 4\d\d/,
  });

  let proxy: { url: string; server: Server } | undefined;
  test.afterEach(async () => {
    proxy?.server.closeAllConnections();
    await new Promise((resolve) => proxy?.server.close(resolve) ?? resolve(undefined));
    proxy = undefined;
  });

  test('gets one sentence naming the header to expose, and no "reconnect when it is back"', async ({
    page,
  }) => {
    proxy = await startSessionHidingProxy(playgroundUrls().demoUrl);
    await openPlayground(page, ['demo']);
    await addServer(page, { name: 'hidden', url: `${proxy.url}/legacy/mcp`, protocol: '2025' });

    const card = serverCard(page, 'hidden');
    await expect(card).toHaveAttribute('data-status', 'error', { timeout: 20_000 });
    const failure = card.getByTestId('server-error');
    await expect(failure.locator('.sb-error-sentence')).toHaveText(
      '"hidden" does not let this page read its session id (CORS). The server must send ' +
        '"Access-Control-Expose-Headers: Mcp-Session-Id" on its responses.',
    );
    await expect(failure.getByTestId('server-error-next')).toHaveText(
      'The chat works without its tools until the server is fixed.',
    );
    // The first line is a sentence: the JSON-RPC body and the code wait under Details.
    const sentence = await failure.locator('.sb-error-sentence').innerText();
    expect(sentence).not.toMatch(/jsonrpc|http_status|`|\{/);
    const details = failure.locator('details');
    await expect(details.locator('.sb-error-body')).toBeHidden();
    await details.locator('summary').click();
    await expect(details.locator('.sb-error-code')).toHaveText('http_status');
    await expect(details.locator('.sb-error-body')).toContainText('jsonrpc');
    await expect(details).toContainText('HTTP status400');
  });
});
