import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  auth,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/client';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoServer } from './start-demo-server.ts';
import type { DemoOAuthOptions, DemoServer } from './start-demo-server.ts';

/** Never fetched: the tests read the authorization redirect's `Location` instead. */
const REDIRECT_URI = 'http://127.0.0.1:1/callback';
const PAGE_ORIGIN = 'http://127.0.0.1:5173';

const servers: DemoServer[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A demo server with OAuth; its URLs are asserted present. */
async function start(
  oauth: DemoOAuthOptions = { consent: 'auto' },
): Promise<DemoServer & { protectedUrl: string; authorizationServerUrl: string }> {
  const server = await startDemoServer({ oauth });
  servers.push(server);
  const { protectedUrl, authorizationServerUrl } = server;
  if (protectedUrl === undefined || authorizationServerUrl === undefined) {
    throw new Error('The demo server did not start its OAuth endpoint.');
  }
  return { ...server, protectedUrl, authorizationServerUrl };
}

/** An OAuth client provider that keeps everything in memory and records the redirect. */
class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private information: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';

  get redirectUrl(): string {
    return REDIRECT_URI;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      redirect_uris: [REDIRECT_URI],
      client_name: 'Protected endpoint test',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  state(): string {
    return 'state-abc';
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.information;
  }

  saveClientInformation(information: StoredOAuthClientInformation): void {
    this.information = information;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

/** Follows the consent-`auto` redirect the provider recorded; returns the callback's query. */
async function approve(provider: MemoryOAuthProvider): Promise<URLSearchParams> {
  const url = provider.authorizationUrl;
  if (url === undefined) throw new Error('The client never redirected to the authorization page.');
  provider.authorizationUrl = undefined;
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') ?? '').searchParams;
}

/** Runs the whole flow with `auth()` (consent `auto`) and returns the access token. */
async function accessToken(server: { protectedUrl: string }, scope?: string): Promise<string> {
  return (await signIn(server, scope)).tokens()?.access_token ?? '';
}

/** Runs the whole flow with `auth()` (consent `auto`); returns the signed-in provider. */
async function signIn(
  server: { protectedUrl: string },
  scope?: string,
): Promise<MemoryOAuthProvider> {
  const provider = new MemoryOAuthProvider();
  const options = scope === undefined ? {} : { scope };
  expect(await auth(provider, { serverUrl: server.protectedUrl, ...options })).toBe('REDIRECT');
  const callback = await approve(provider);
  const result = await auth(provider, {
    serverUrl: server.protectedUrl,
    authorizationCode: callback.get('code') ?? '',
    iss: callback.get('iss') ?? '',
  });
  expect(result).toBe('AUTHORIZED');
  return provider;
}

function newClient(): Client {
  const client = new Client(
    { name: 'protected-endpoint-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  clients.push(client);
  return client;
}

/** A JSON-RPC POST to the protected endpoint with an optional bearer token. */
async function post(url: string, body: unknown, token?: string): Promise<Response> {
  return await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      origin: PAGE_ORIGIN,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

const discoverRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {},
};

function callResetRequest(): unknown {
  return {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'reset_demo_data', arguments: {} },
  };
}

describe('demo server /protected/mcp: discovery', () => {
  it('publishes RFC 9728 metadata that browsers can read cross-origin', async () => {
    const server = await start();
    expect(server.protectedUrl).toBe(`${server.url}/protected/mcp`);
    expect(server.authorizationServerUrl).toBe(server.authorizationServer?.url);

    const metadata = await discoverOAuthProtectedResourceMetadata(server.protectedUrl);
    expect(metadata).toMatchObject({
      resource: server.protectedUrl,
      authorization_servers: [server.authorizationServerUrl],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
    });

    const response = await fetch(
      `${server.url}/.well-known/oauth-protected-resource/protected/mcp`,
      { headers: { origin: PAGE_ORIGIN } },
    );
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);

    const preflight = await fetch(server.protectedUrl, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');

    const index = (await (await fetch(server.url)).json()) as Record<string, unknown>;
    expect(index).toMatchObject({
      protectedUrl: server.protectedUrl,
      authorizationServerUrl: server.authorizationServerUrl,
    });
  });

  it('answers 401 with a Bearer challenge, and exposes it to the page', async () => {
    const server = await start();
    const metadataUrl = `${server.url}/.well-known/oauth-protected-resource/protected/mcp`;

    const missing = await post(server.protectedUrl, discoverRequest);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}", scope="mcp:tools"`,
    );
    expect(missing.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(missing.headers.get('access-control-expose-headers')).toContain('www-authenticate');

    const invalid = await post(server.protectedUrl, discoverRequest, 'made-up-token');
    expect(invalid.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(invalid);
    expect(challenge).toMatchObject({ error: 'invalid_token', scope: 'mcp:tools' });
    expect(challenge.resourceMetadataUrl?.href).toBe(metadataUrl);
    expect(invalid.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+", scope="mcp:tools"$/,
    );
  });

  it('is not served without the oauth option', async () => {
    const server = await startDemoServer();
    servers.push(server);
    expect(server.protectedUrl).toBeUndefined();
    expect(server.authorizationServerUrl).toBeUndefined();
    expect((await post(`${server.url}/protected/mcp`, discoverRequest)).status).toBe(404);
  });
});

describe('demo server /protected/mcp: authorized use', () => {
  it('a Client with an OAuth provider lists the tools after authorizing', async () => {
    const server = await start();
    const provider = new MemoryOAuthProvider();
    const first = newClient();
    const transport = new StreamableHTTPClientTransport(new URL(server.protectedUrl), {
      authProvider: provider,
    });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await approve(provider);
    expect(callback.get('iss')).toBe(server.authorizationServerUrl);
    await transport.finishAuth(callback);

    const client = newClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.protectedUrl), { authProvider: provider }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(169);
    const reset = tools.find((tool) => tool.name === 'reset_demo_data');
    expect(reset?.annotations?.destructiveHint).toBe(true);
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(weather.isError).not.toBe(true);

    const tokenRequest = server.authorizationServer?.requests.find(
      (entry) => entry.path === '/token',
    );
    expect(tokenRequest).toMatchObject({
      grantType: 'authorization_code',
      resource: server.protectedUrl,
    });
    const granted = await server.authorizationServer?.verifyAccessToken(
      provider.tokens()?.access_token ?? '',
    );
    expect(granted).toMatchObject({ scopes: ['mcp:tools'] });
    expect(granted?.resource?.href).toBe(server.protectedUrl);
  });

  it('authorizes through the consent page (GET the page, POST Allow)', async () => {
    const server = await start({ consent: 'page' });
    const provider = new MemoryOAuthProvider();
    expect(await auth(provider, { serverUrl: server.protectedUrl })).toBe('REDIRECT');
    const page = await fetch(provider.authorizationUrl ?? '');
    const html = await page.text();
    expect(html).toContain('Sign in to Switchboard demo');
    expect(html).toContain('Protected endpoint test');
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const username = /name="username" value="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(username).toBe('demo-user');

    const decision = await fetch(new URL('/consent', server.authorizationServerUrl), {
      method: 'POST',
      body: new URLSearchParams({ request_id: requestId, username, decision: 'allow' }),
      redirect: 'manual',
    });
    expect(decision.status).toBe(302);
    const callback = new URL(decision.headers.get('location') ?? '').searchParams;
    expect(callback.get('state')).toBe('state-abc');
    const result = await auth(provider, {
      serverUrl: server.protectedUrl,
      authorizationCode: callback.get('code') ?? '',
      iss: callback.get('iss') ?? '',
    });
    expect(result).toBe('AUTHORIZED');
    const response = await post(
      server.protectedUrl,
      discoverRequest,
      provider.tokens()?.access_token,
    );
    expect(response.status).toBe(200);
  });

  it('an expired token gets 401 invalid_token', async () => {
    const server = await start({ consent: 'auto', accessTokenTtlMs: 200 });
    const token = await accessToken(server);
    expect((await post(server.protectedUrl, discoverRequest, token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const expired = await post(server.protectedUrl, discoverRequest, token);
    expect(expired.status).toBe(401);
    expect(extractWWWAuthenticateParams(expired).error).toBe('invalid_token');
  });

  it('a token bound to another resource gets 401 invalid_token', async () => {
    const server = await start();
    const other = await start();
    // Authorized for the other demo server's protected endpoint, sent to this one.
    const token = await accessToken(other);
    const response = await post(server.protectedUrl, discoverRequest, token);
    expect(response.status).toBe(401);
  });
});

describe('demo server /protected/mcp: step-up to mcp:admin', () => {
  it('reset_demo_data without mcp:admin is 403 insufficient_scope; with it, it runs', async () => {
    const server = await start();
    const token = await accessToken(server);
    const refused = await post(server.protectedUrl, callResetRequest(), token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="reset_demo_data needs the mcp:admin scope.", ` +
        `resource_metadata="${server.url}/.well-known/oauth-protected-resource/protected/mcp", ` +
        `scope="mcp:tools mcp:admin"`,
    );
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    // Other tools still work with the narrower token.
    expect((await post(server.protectedUrl, discoverRequest, token)).status).toBe(200);

    const adminToken = await accessToken(server, 'mcp:tools mcp:admin');
    const allowed = await post(server.protectedUrl, callResetRequest(), adminToken);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('Demo data reset');
  });

  it('the SDK transport surfaces the step-up challenge', async () => {
    const server = await start();
    const provider = new MemoryOAuthProvider();
    await accessTokenFor(provider, server);
    const client = newClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.protectedUrl), {
        authProvider: provider,
        onInsufficientScope: 'throw',
      }),
    );
    const error: unknown = await client.callTool({ name: 'reset_demo_data', arguments: {} }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InsufficientScopeError);
    expect((error as InsufficientScopeError).requiredScope).toBe('mcp:tools mcp:admin');
  });

  it('the SDK transport re-authorizes with the wider scope (step-up) and then succeeds', async () => {
    const server = await start();
    const provider = new MemoryOAuthProvider();
    await accessTokenFor(provider, server);
    const first = newClient();
    const transport = new StreamableHTTPClientTransport(new URL(server.protectedUrl), {
      authProvider: provider,
    });
    await first.connect(transport);
    await expect(first.callTool({ name: 'reset_demo_data', arguments: {} })).rejects.toBeDefined();
    expect(provider.authorizationUrl?.searchParams.get('scope')).toBe('mcp:tools mcp:admin');
    await transport.finishAuth(await approve(provider));
    expect(provider.tokens()?.scope).toBe('mcp:tools mcp:admin');

    const client = newClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.protectedUrl), { authProvider: provider }),
    );
    const result = await client.callTool({ name: 'reset_demo_data', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('Demo data reset');
  });
});

/** Completes the flow for `provider` (consent `auto`), leaving its tokens saved. */
async function accessTokenFor(
  provider: MemoryOAuthProvider,
  server: { protectedUrl: string },
): Promise<void> {
  expect(await auth(provider, { serverUrl: server.protectedUrl })).toBe('REDIRECT');
  const callback = await approve(provider);
  await auth(provider, {
    serverUrl: server.protectedUrl,
    authorizationCode: callback.get('code') ?? '',
    iss: callback.get('iss') ?? '',
  });
}

describe('demo server /control/oauth', () => {
  /** `GET /control/oauth/token-requests`, optionally for one client. */
  async function tokenRequests(
    server: { url: string },
    clientId?: string,
  ): Promise<Record<string, unknown>> {
    const query = clientId === undefined ? '' : `?clientId=${encodeURIComponent(clientId)}`;
    const response = await fetch(`${server.url}/control/oauth/token-requests${query}`, {
      headers: { origin: PAGE_ORIGIN },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    return (await response.json()) as Record<string, unknown>;
  }

  /** `POST /control/oauth/expire-access-tokens` with `body`. */
  async function expireAccessTokens(server: { url: string }, body?: unknown): Promise<Response> {
    return await fetch(`${server.url}/control/oauth/expire-access-tokens`, {
      method: 'POST',
      headers: { origin: PAGE_ORIGIN, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  it('expire-access-tokens makes tokens 401 until a refresh; token-requests counts it', async () => {
    const server = await start();
    expect(await tokenRequests(server)).toEqual({ authorization_code: 0, refresh_token: 0 });
    const provider = await signIn(server);
    const before = provider.tokens();
    expect((await post(server.protectedUrl, discoverRequest, before?.access_token)).status).toBe(
      200,
    );
    expect(await tokenRequests(server)).toEqual({ authorization_code: 1, refresh_token: 0 });

    const expire = await expireAccessTokens(server);
    expect(expire.status).toBe(200);
    expect(expire.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(await expire.json()).toEqual({ expired: 1 });
    const refused = await post(server.protectedUrl, discoverRequest, before?.access_token);
    expect(refused.status).toBe(401);
    expect(extractWWWAuthenticateParams(refused).error).toBe('invalid_token');

    // The refresh token still works: one refresh, and the new access token is accepted.
    expect(await auth(provider, { serverUrl: server.protectedUrl })).toBe('AUTHORIZED');
    const after = provider.tokens();
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(after?.refresh_token).not.toBe(before?.refresh_token);
    expect((await post(server.protectedUrl, discoverRequest, after?.access_token)).status).toBe(
      200,
    );
    const counts = await tokenRequests(server);
    expect(counts).toEqual({ authorization_code: 1, refresh_token: 1 });
    // Counts only: no token value anywhere in the answers.
    for (const token of [before, after].flatMap((tokens) => [
      tokens?.access_token,
      tokens?.refresh_token,
    ])) {
      expect(JSON.stringify(counts)).not.toContain(token);
    }
    // Nothing left to expire but the new token; expiring twice is harmless.
    expect(await (await expireAccessTokens(server, {})).json()).toEqual({ expired: 1 });
    expect(await (await expireAccessTokens(server)).json()).toEqual({ expired: 0 });
  });

  it('clientId narrows both routes to one client', async () => {
    const server = await start();
    const first = await signIn(server);
    const second = await signIn(server);
    const firstId = first.clientInformation()?.client_id ?? '';
    const secondId = second.clientInformation()?.client_id ?? '';
    expect(firstId).not.toBe(secondId);

    const expire = await expireAccessTokens(server, { clientId: firstId });
    expect(await expire.json()).toEqual({ expired: 1 });
    const firstToken = first.tokens()?.access_token;
    const secondToken = second.tokens()?.access_token;
    expect((await post(server.protectedUrl, discoverRequest, firstToken)).status).toBe(401);
    expect((await post(server.protectedUrl, discoverRequest, secondToken)).status).toBe(200);

    expect(await auth(first, { serverUrl: server.protectedUrl })).toBe('AUTHORIZED');
    expect(await tokenRequests(server, firstId)).toEqual({
      authorization_code: 1,
      refresh_token: 1,
    });
    expect(await tokenRequests(server, secondId)).toEqual({
      authorization_code: 1,
      refresh_token: 0,
    });
    expect(await tokenRequests(server, 'someone-else')).toEqual({
      authorization_code: 0,
      refresh_token: 0,
    });
    expect(await tokenRequests(server)).toEqual({ authorization_code: 2, refresh_token: 1 });
  });

  it('refuses other methods and unknown fields, like the other control routes', async () => {
    const server = await start();
    const wrongMethod = await fetch(`${server.url}/control/oauth/expire-access-tokens`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, OPTIONS');
    const wrongCount = await fetch(`${server.url}/control/oauth/token-requests`, {
      method: 'POST',
    });
    expect(wrongCount.status).toBe(405);
    expect(wrongCount.headers.get('allow')).toBe('GET, OPTIONS');
    expect((await expireAccessTokens(server, { everything: true })).status).toBe(400);
    expect((await expireAccessTokens(server, { clientId: 7 })).status).toBe(400);

    const preflight = await fetch(`${server.url}/control/oauth/expire-access-tokens`, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);

    const index = (await (await fetch(server.url)).json()) as { control?: unknown };
    expect(index.control).toEqual(
      expect.arrayContaining([
        `${server.url}/control/oauth/expire-access-tokens`,
        `${server.url}/control/oauth/token-requests`,
      ]),
    );
  });

  it('is not served without the oauth option', async () => {
    const server = await startDemoServer();
    servers.push(server);
    expect((await fetch(`${server.url}/control/oauth/token-requests`)).status).toBe(404);
    expect(
      (await fetch(`${server.url}/control/oauth/expire-access-tokens`, { method: 'POST' })).status,
    ).toBe(404);
    const index = (await (await fetch(server.url)).json()) as { control?: unknown };
    expect(index.control).toEqual([
      `${server.url}/control/faults`,
      `${server.url}/control/tools-changed`,
    ]);
  });
});
