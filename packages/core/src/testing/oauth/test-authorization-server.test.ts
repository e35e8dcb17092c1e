import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  validateAuthorizationResponseIssuer,
} from '@modelcontextprotocol/client';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationFull,
  OAuthClientInformationMixed,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestAuthorizationServer } from './test-authorization-server.ts';
import type {
  TestAuthorizationServer,
  TestAuthorizationServerOptions,
} from './test-authorization-server.ts';

/** Never fetched: the tests read the redirect's `Location` header instead of following it. */
const REDIRECT_URI = 'http://127.0.0.1:1/callback';
const RESOURCE = 'http://127.0.0.1:2/protected/mcp';

const servers: TestAuthorizationServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: TestAuthorizationServerOptions = {}): Promise<{
  server: TestAuthorizationServer;
  metadata: AuthorizationServerMetadata;
}> {
  const server = await startTestAuthorizationServer(options);
  servers.push(server);
  const metadata = await discoverAuthorizationServerMetadata(server.url);
  if (metadata === undefined) throw new Error('No authorization server metadata.');
  return { server, metadata };
}

async function registerPublicClient(
  server: TestAuthorizationServer,
  metadata: AuthorizationServerMetadata,
  clientName = 'Test client',
): Promise<OAuthClientInformationFull> {
  return await registerClient(server.url, {
    metadata,
    clientMetadata: {
      redirect_uris: [REDIRECT_URI],
      client_name: clientName,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  });
}

interface AuthorizationRequest {
  authorizationUrl: URL;
  codeVerifier: string;
}

async function beginAuthorization(
  server: TestAuthorizationServer,
  metadata: AuthorizationServerMetadata,
  clientInformation: OAuthClientInformationMixed,
  scope = 'mcp:tools',
): Promise<AuthorizationRequest> {
  return await startAuthorization(server.url, {
    metadata,
    clientInformation,
    redirectUrl: REDIRECT_URI,
    scope,
    state: 'state-123',
    resource: RESOURCE,
  });
}

/**
 * Redeems the code in `callback` as `request` asked for it (PKCE verifier, redirect URI,
 * `resource`); `overrides` change single fields, to test what the server refuses.
 */
async function redeem(
  server: TestAuthorizationServer,
  metadata: AuthorizationServerMetadata,
  clientInformation: OAuthClientInformationMixed,
  request: AuthorizationRequest,
  callback: URLSearchParams,
  overrides: Partial<Parameters<typeof exchangeAuthorization>[1]> = {},
) {
  return await exchangeAuthorization(server.url, {
    metadata,
    clientInformation,
    authorizationCode: callback.get('code') ?? '',
    iss: callback.get('iss') ?? '',
    codeVerifier: request.codeVerifier,
    redirectUri: REDIRECT_URI,
    resource: RESOURCE,
    ...overrides,
  });
}

/** Requests `url` without following redirects; returns the redirect target's query. */
async function redirectParameters(url: URL, init: RequestInit = {}): Promise<URLSearchParams> {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = response.headers.get('location');
  expect(location).not.toBeNull();
  const target = new URL(location ?? '');
  expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
  return target.searchParams;
}

/** Registers a client, authorizes (consent `auto`) and exchanges the code. */
async function authorizeAndExchange(
  server: TestAuthorizationServer,
  metadata: AuthorizationServerMetadata,
  scope = 'mcp:tools',
): Promise<{
  client: OAuthClientInformationFull;
  tokens: Awaited<ReturnType<typeof exchangeAuthorization>>;
}> {
  const client = await registerPublicClient(server, metadata);
  const request = await beginAuthorization(server, metadata, client, scope);
  const callback = await redirectParameters(request.authorizationUrl);
  const tokens = await redeem(server, metadata, client, request, callback);
  return { client, tokens };
}

/** The hidden and prefilled fields of the consent page's form. */
function consentFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    const [, name, value] = match;
    if (name !== undefined && value !== undefined) fields[name] = value;
  }
  return fields;
}

describe('startTestAuthorizationServer: discovery', () => {
  it('binds 127.0.0.1 and publishes RFC 8414 metadata with S256 and RFC 9207', async () => {
    const { server, metadata } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metadata).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/authorize`,
      token_endpoint: `${server.url}/token`,
      registration_endpoint: `${server.url}/register`,
      revocation_endpoint: `${server.url}/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['mcp:tools', 'mcp:admin'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');

    // Browsers on the playground's origin read it cross-origin.
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`, {
      headers: { origin: 'http://127.0.0.1:5173' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('rejects bad options and an aborted signal', async () => {
    await expect(startTestAuthorizationServer({ accessTokenTtlMs: 0 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(startTestAuthorizationServer({ port: 70_000 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(
      startTestAuthorizationServer({ scopesSupported: ['two words'] }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      startTestAuthorizationServer({ signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'aborted' });
  });

  it('close() is idempotent and aborting the signal closes the server', async () => {
    const controller = new AbortController();
    const server = await startTestAuthorizationServer({ signal: controller.signal });
    controller.abort();
    await server.close();
    await expect(server.close()).resolves.toBeUndefined();
    await expect(fetch(`${server.url}/.well-known/oauth-authorization-server`)).rejects.toThrow();
  });
});

describe('startTestAuthorizationServer: authorization code + PKCE', () => {
  it('consent "auto": code, state and iss, then tokens bound to the resource', async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const client = await registerPublicClient(server, metadata);
    const request = await beginAuthorization(server, metadata, client);
    const callback = await redirectParameters(request.authorizationUrl);
    expect(callback.get('state')).toBe('state-123');
    expect(callback.get('iss')).toBe(server.url);
    expect(() =>
      validateAuthorizationResponseIssuer({
        iss: callback.get('iss') ?? undefined,
        expectedIssuer: metadata.issuer,
        issParameterSupported: true,
      }),
    ).not.toThrow();
    const code = callback.get('code') ?? '';
    expect(code).not.toBe('');

    const tokens = await exchangeAuthorization(server.url, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      iss: callback.get('iss') ?? '',
      codeVerifier: request.codeVerifier,
      redirectUri: REDIRECT_URI,
      resource: RESOURCE,
    });
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools', expires_in: 3600 });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const verified = await server.verifyAccessToken(tokens.access_token);
    expect(verified).toMatchObject({ clientId: client.client_id, scopes: ['mcp:tools'] });
    expect(verified?.resource?.href).toBe(RESOURCE);
    const nowSeconds = Date.now() / 1000;
    expect(verified?.expiresAt).toBeGreaterThan(nowSeconds + 3590);
    expect(verified?.expiresAt).toBeLessThanOrEqual(nowSeconds + 3601);
    expect(await server.verifyAccessToken('not-a-token')).toBeUndefined();

    // The code is single-use.
    await expect(
      exchangeAuthorization(server.url, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        iss: server.url,
        codeVerifier: request.codeVerifier,
        redirectUri: REDIRECT_URI,
      }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });

    expect(server.tokenRequestCount('authorization_code')).toBe(2);
    expect(server.requests).toContainEqual({
      method: 'POST',
      path: '/token',
      grantType: 'authorization_code',
      resource: RESOURCE,
      clientId: client.client_id,
    });
    const log = JSON.stringify(server.requests);
    expect(log).not.toContain(tokens.access_token);
    expect(log).not.toContain(tokens.refresh_token);
    expect(log).not.toContain(code);
    expect(log).not.toContain(request.codeVerifier);
  });

  it('consent page: GET shows the form, POST Allow redirects with a code', async () => {
    const { server, metadata } = await start();
    const client = await registerPublicClient(server, metadata, '<script>alert(1)</script> & Co');
    const request = await beginAuthorization(server, metadata, client, 'mcp:tools mcp:admin');

    const page = await fetch(request.authorizationUrl, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("form-action 'self' http://127.0.0.1:1");
    expect(policy).not.toContain('script-src');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('Sign in to Switchboard demo');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<code>mcp:tools</code>');
    expect(html).toContain('<code>mcp:admin</code>');
    expect(html).toContain('<form method="post" action="/consent">');
    expect(html).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(html).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    const fields = consentFields(html);
    expect(fields['username']).toBe('demo-user');
    expect(fields['request_id']).toEqual(expect.any(String));

    const form = new URLSearchParams({ ...fields, decision: 'allow' });
    const callback = await redirectParameters(new URL('/consent', server.url), {
      method: 'POST',
      body: form,
    });
    expect(callback.get('state')).toBe('state-123');
    expect(callback.get('iss')).toBe(server.url);
    const tokens = await redeem(server, metadata, client, request, callback);
    expect(tokens.scope).toBe('mcp:tools mcp:admin');

    // Each consent request is answered once.
    const again = await fetch(new URL('/consent', server.url), {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(again.status).toBe(400);
    expect(server.requests).toContainEqual({
      method: 'POST',
      path: '/consent',
      clientId: client.client_id,
      resource: RESOURCE,
    });
  });

  it('consent page: Deny redirects with access_denied, state and iss', async () => {
    const { server, metadata } = await start();
    const client = await registerPublicClient(server, metadata);
    const request = await beginAuthorization(server, metadata, client);
    const html = await (await fetch(request.authorizationUrl)).text();
    const callback = await redirectParameters(new URL('/consent', server.url), {
      method: 'POST',
      body: new URLSearchParams({ ...consentFields(html), decision: 'deny' }),
    });
    expect(callback.get('error')).toBe('access_denied');
    expect(callback.get('state')).toBe('state-123');
    expect(callback.get('iss')).toBe(server.url);
    expect(callback.has('code')).toBe(false);
  });

  it('an unknown scope is redirected as invalid_scope with iss', async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const client = await registerPublicClient(server, metadata);
    const request = await beginAuthorization(server, metadata, client, 'mcp:tools mcp:root');
    const callback = await redirectParameters(request.authorizationUrl);
    expect(callback.get('error')).toBe('invalid_scope');
    expect(callback.get('state')).toBe('state-123');
    expect(callback.get('iss')).toBe(server.url);
  });

  it('rejects a wrong PKCE verifier with invalid_grant', async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const client = await registerPublicClient(server, metadata);
    const request = await beginAuthorization(server, metadata, client);
    const callback = await redirectParameters(request.authorizationUrl);
    await expect(
      redeem(server, metadata, client, request, callback, {
        codeVerifier: `${request.codeVerifier.slice(0, -1)}x`,
      }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('rejects a token request for another resource with invalid_target', async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const client = await registerPublicClient(server, metadata);
    const request = await beginAuthorization(server, metadata, client);
    const callback = await redirectParameters(request.authorizationUrl);
    await expect(
      redeem(server, metadata, client, request, callback, {
        resource: 'http://127.0.0.1:3/other/mcp',
      }),
    ).rejects.toMatchObject({ code: 'invalid_target' });
  });

  it('a pre-registered confidential client must send its secret', async () => {
    const { server, metadata } = await start({
      consent: 'auto',
      preRegisteredClients: [
        { client_id: 'playground', client_secret: 's3cret', redirect_uris: [REDIRECT_URI] },
      ],
    });
    const request = await beginAuthorization(server, metadata, { client_id: 'playground' });
    const callback = await redirectParameters(request.authorizationUrl);
    const exchange = (clientInformation: OAuthClientInformationMixed) =>
      exchangeAuthorization(server.url, {
        metadata,
        clientInformation,
        authorizationCode: callback.get('code') ?? '',
        iss: callback.get('iss') ?? '',
        codeVerifier: request.codeVerifier,
        redirectUri: REDIRECT_URI,
      });
    await expect(exchange({ client_id: 'playground' })).rejects.toMatchObject({
      code: 'invalid_client',
    });
    const tokens = await exchange({ client_id: 'playground', client_secret: 's3cret' });
    expect(await server.verifyAccessToken(tokens.access_token)).toMatchObject({
      clientId: 'playground',
    });
    expect(JSON.stringify(server.requests)).not.toContain('s3cret');
  });
});

describe('startTestAuthorizationServer: tokens', () => {
  it('rotates refresh tokens; replaying a rotated one is invalid_grant and revokes the grant', async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const { client, tokens } = await authorizeAndExchange(server, metadata);
    const first = tokens.refresh_token ?? '';

    const refreshed = await refreshAuthorization(server.url, {
      metadata,
      clientInformation: client,
      refreshToken: first,
      resource: RESOURCE,
    });
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(first);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await server.verifyAccessToken(refreshed.access_token))?.resource?.href).toBe(RESOURCE);

    await expect(
      refreshAuthorization(server.url, {
        metadata,
        clientInformation: client,
        refreshToken: first,
      }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
    // Reuse detection: the whole grant is gone, the newest tokens included.
    expect(await server.verifyAccessToken(refreshed.access_token)).toBeUndefined();
    await expect(
      refreshAuthorization(server.url, {
        metadata,
        clientInformation: client,
        refreshToken: refreshed.refresh_token ?? '',
      }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(server.tokenRequestCount('refresh_token')).toBe(3);
  });

  it('keeps the refresh token when rotation is off; a wider scope is invalid_scope', async () => {
    const { server, metadata } = await start({ consent: 'auto', rotateRefreshTokens: false });
    const { client, tokens } = await authorizeAndExchange(server, metadata);
    const refreshToken = tokens.refresh_token ?? '';
    for (let round = 0; round < 2; round += 1) {
      const refreshed = await refreshAuthorization(server.url, {
        metadata,
        clientInformation: client,
        refreshToken,
      });
      expect(refreshed.refresh_token).toBe(refreshToken);
    }
    await expect(
      refreshAuthorization(server.url, {
        metadata,
        clientInformation: client,
        refreshToken,
        scope: 'mcp:tools mcp:admin',
      }),
    ).rejects.toMatchObject({ code: 'invalid_scope' });
  });

  it('access tokens expire after accessTokenTtlMs', async () => {
    const { server, metadata } = await start({ consent: 'auto', accessTokenTtlMs: 200 });
    const { tokens } = await authorizeAndExchange(server, metadata);
    expect(tokens.expires_in).toBe(1);
    expect(await server.verifyAccessToken(tokens.access_token)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await server.verifyAccessToken(tokens.access_token)).toBeUndefined();
  });

  it("expireAccessTokens() expires access tokens (all, or one client's); refreshes still work", async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const first = await authorizeAndExchange(server, metadata);
    const second = await authorizeAndExchange(server, metadata);
    expect(server.expireAccessTokens({ clientId: first.client.client_id })).toBe(1);
    expect(await server.verifyAccessToken(first.tokens.access_token)).toBeUndefined();
    expect(await server.verifyAccessToken(second.tokens.access_token)).toBeDefined();

    const refreshed = await refreshAuthorization(server.url, {
      metadata,
      clientInformation: first.client,
      refreshToken: first.tokens.refresh_token ?? '',
      resource: RESOURCE,
    });
    expect(await server.verifyAccessToken(refreshed.access_token)).toBeDefined();
    expect(server.tokenRequestCount('refresh_token')).toBe(1);
    expect(server.tokenRequestCount('refresh_token', { clientId: first.client.client_id })).toBe(1);
    expect(server.tokenRequestCount('refresh_token', { clientId: second.client.client_id })).toBe(
      0,
    );
    expect(
      server.tokenRequestCount('authorization_code', { clientId: second.client.client_id }),
    ).toBe(1);

    expect(server.expireAccessTokens()).toBe(2);
    expect(await server.verifyAccessToken(refreshed.access_token)).toBeUndefined();
    expect(await server.verifyAccessToken(second.tokens.access_token)).toBeUndefined();
    await expect(
      refreshAuthorization(server.url, {
        metadata,
        clientInformation: second.client,
        refreshToken: second.tokens.refresh_token ?? '',
      }),
    ).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('revokeAllTokens() and POST /revoke invalidate tokens', async () => {
    const { server, metadata } = await start({ consent: 'auto' });
    const first = await authorizeAndExchange(server, metadata);
    const revoke = await fetch(`${server.url}/revoke`, {
      method: 'POST',
      body: new URLSearchParams({
        token: first.tokens.access_token,
        client_id: first.client.client_id,
      }),
    });
    expect(revoke.status).toBe(200);
    expect(await server.verifyAccessToken(first.tokens.access_token)).toBeUndefined();

    const second = await authorizeAndExchange(server, metadata);
    expect(await server.verifyAccessToken(second.tokens.access_token)).toBeDefined();
    server.revokeAllTokens();
    expect(await server.verifyAccessToken(second.tokens.access_token)).toBeUndefined();
    await expect(
      refreshAuthorization(server.url, {
        metadata,
        clientInformation: second.client,
        refreshToken: second.tokens.refresh_token ?? '',
      }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});
