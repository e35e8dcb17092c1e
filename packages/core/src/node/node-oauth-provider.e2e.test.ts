import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredOAuthProvider } from '../oauth/stored-oauth-provider.ts';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { nodeOAuthProvider, type NodeOAuthProvider } from './node-oauth-provider.ts';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/**
 * The "system browser" of these tests: visits the authorization URL (the test authorization
 * server approves at once with a 302, consent `auto`) and follows the redirect to the loopback
 * listener, as a browser would.
 */
async function browse(url: string): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (location === null) throw new Error(`The authorization server answered ${response.status}.`);
  const callback = await fetch(new URL(location, url));
  await callback.text();
}

async function start(accessTokenTtlMs?: number) {
  const demo: DemoServer = await startDemoServer({
    oauth: { consent: 'auto', ...(accessTokenTtlMs === undefined ? {} : { accessTokenTtlMs }) },
  });
  cleanups.push(() => demo.close());
  const { protectedUrl, authorizationServer } = demo;
  if (protectedUrl === undefined || authorizationServer === undefined) {
    throw new Error('The demo server has no OAuth endpoint.');
  }
  const provider = await nodeOAuthProvider({ serverUrl: protectedUrl, openBrowser: browse });
  cleanups.push(() => provider.close());
  return { protectedUrl, authorizationServer, provider };
}

/** An SDK client on `url` whose transport uses `provider` and its coordinated fetch. */
function transportFor(url: string, provider: NodeOAuthProvider, tokenFetch: typeof fetch = fetch) {
  return new StreamableHTTPClientTransport(new URL(url), {
    authProvider: provider,
    fetch: provider.coordinateTokenRequests(tokenFetch),
  });
}

async function connectedClient(
  url: string,
  provider: NodeOAuthProvider,
  tokenFetch?: typeof fetch,
) {
  const client = new Client(
    { name: 'node-oauth-provider-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transportFor(url, provider, tokenFetch));
  cleanups.push(() => client.close());
  return client;
}

/** Signs in: the first connect needs authorization, the provider takes the user there and back. */
async function signIn(url: string, provider: NodeOAuthProvider) {
  const transport = transportFor(url, provider);
  const client = new Client(
    { name: 'node-oauth-provider-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const failure = await client.connect(transport).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(UnauthorizedError);
  await client.close().catch(() => undefined);
  const authorizationUrl = (provider as unknown as StoredOAuthProvider).lastAuthorizationUrl;
  if (authorizationUrl === undefined) throw new Error('The SDK started no authorization.');
  const callback = await provider.authorize(authorizationUrl);
  if (callback === undefined) throw new Error('No callback.');
  await transport.finishAuth(callback);
}

describe('nodeOAuthProvider end to end (SDK client, demo server, test authorization server)', () => {
  it('signs in through the loopback listener and calls the protected server', async () => {
    const { protectedUrl, authorizationServer, provider } = await start();
    await signIn(protectedUrl, provider);
    expect(await provider.accountState()).toMatchObject({
      signedIn: true,
      issuer: authorizationServer.url,
      scope: expect.stringContaining('mcp:tools'),
    });
    const client = await connectedClient(protectedUrl, provider);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(authorizationServer.tokenRequestCount('authorization_code')).toBe(1);
  });

  it('refreshes expired tokens once for three clients whose requests all got 401', async () => {
    const { protectedUrl, authorizationServer, provider } = await start(5_000);
    await signIn(protectedUrl, provider);
    const before = await provider.tokens();
    // Token requests take a moment, as over a real network: the three 401s overlap the refresh.
    const slowTokens: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.startsWith(authorizationServer.url)) {
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      return await fetch(input, init);
    };
    const clients = await Promise.all(
      [1, 2, 3].map(() => connectedClient(protectedUrl, provider, slowTokens)),
    );
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    const results = await Promise.all(clients.map((client) => client.listTools()));
    expect(results.every((result) => result.tools.length > 0)).toBe(true);
    expect(authorizationServer.tokenRequestCount('refresh_token')).toBe(1);
    const after = await provider.tokens();
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(after?.refresh_token).not.toBe(before?.refresh_token);
  });
});
