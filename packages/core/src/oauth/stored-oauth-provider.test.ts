import { inspect } from 'node:util';
import { auth, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryOAuthStore } from './memory-oauth-store.ts';
import { fakeAuthorizationServer, SECRET_MARKER } from './oauth-test-support.ts';
import type { OAuthFlowState, OAuthServerCredentials } from './oauth-stores.ts';
import { StoredOAuthProvider, type StoredOAuthProviderOptions } from './stored-oauth-provider.ts';

const SERVER_URL = 'http://mcp.localhost/mcp';
const REDIRECT_URL = 'http://127.0.0.1:4567/callback';

function setup(overrides: Partial<StoredOAuthProviderOptions> = {}) {
  const credentialStore = new MemoryOAuthStore<OAuthServerCredentials>();
  const flowStore = new MemoryOAuthStore<OAuthFlowState>();
  let now = 1_000_000;
  const provider = new StoredOAuthProvider({
    serverUrl: SERVER_URL,
    redirectUrl: REDIRECT_URL,
    credentialStore,
    flowStore,
    now: () => now,
    ...overrides,
  });
  return {
    provider,
    credentialStore,
    flowStore,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function tokens(accessToken: string, extra: Partial<StoredOAuthTokens> = {}): StoredOAuthTokens {
  return { access_token: accessToken, token_type: 'Bearer', ...extra };
}

/** Runs the SDK's whole authorization-code flow with `provider` against `server`. */
async function signIn(
  provider: StoredOAuthProvider,
  server: ReturnType<typeof fakeAuthorizationServer>,
) {
  expect(await auth(provider, { serverUrl: server.serverUrl, fetchFn: server.fetch })).toBe(
    'REDIRECT',
  );
  const authorizationUrl = provider.lastAuthorizationUrl;
  if (authorizationUrl === undefined) throw new Error('no authorization URL recorded');
  const query = server.approve(authorizationUrl);
  expect(query.get('state')).toBe(authorizationUrl.searchParams.get('state'));
  expect(
    await auth(provider, {
      serverUrl: server.serverUrl,
      fetchFn: server.fetch,
      authorizationCode: query.get('code') ?? '',
      iss: query.get('iss') ?? '',
    }),
  ).toBe('AUTHORIZED');
  return { authorizationUrl, query };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('StoredOAuthProvider settings', () => {
  it('defaults the client metadata and lets options override it (redirect_uris stays)', () => {
    const { provider } = setup();
    expect(provider.clientMetadata).toEqual({
      client_name: 'Switchboard',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const custom = setup({
      clientMetadata: { client_name: 'My app', client_uri: 'https://app.example' },
      scope: 'tools:read',
    }).provider;
    expect(custom.clientMetadata).toMatchObject({
      client_name: 'My app',
      client_uri: 'https://app.example',
      scope: 'tools:read',
      redirect_uris: [REDIRECT_URL],
    });
    expect(custom.redirectUrl).toBe(REDIRECT_URL);
    expect(custom.serverUrl).toBe(SERVER_URL);
  });

  it('accepts an https client ID metadata URL and rejects others with invalid_input', () => {
    const url = 'https://app.example/oauth/client.json';
    expect(setup({ clientMetadataUrl: url }).provider.clientMetadataUrl).toBe(url);
    expect(setup().provider.clientMetadataUrl).toBeUndefined();
    for (const bad of ['http://app.example/client.json', 'https://app.example/', 'nonsense']) {
      expect(() => setup({ clientMetadataUrl: bad })).toThrow(
        expect.objectContaining({ code: 'invalid_input' }),
      );
    }
    expect(() => setup({ serverUrl: 'not a url' })).toThrow(
      expect.objectContaining({ code: 'invalid_input' }),
    );
  });
});

describe('StoredOAuthProvider storage', () => {
  it('keys tokens by issuer, with the latest for the ctx-less read and expiresAt from expires_in', async () => {
    const { provider, credentialStore, advance } = setup();
    await provider.saveTokens(tokens('a-1', { expires_in: 60 }), { issuer: 'https://a.example' });
    advance(1000);
    await provider.saveTokens(tokens('b-1'), { issuer: 'https://b.example/' });
    expect((await provider.tokens({ issuer: 'https://a.example' }))?.access_token).toBe('a-1');
    // A trailing slash is the same issuer (as in the SDK).
    expect((await provider.tokens({ issuer: 'https://b.example' }))?.access_token).toBe('b-1');
    expect((await provider.tokens())?.access_token).toBe('b-1');
    expect(await provider.tokens({ issuer: 'https://c.example' })).toBeUndefined();
    const stored = credentialStore.read(SERVER_URL);
    expect(stored?.latestIssuer).toBe('https://b.example/');
    const a = stored?.issuers.find((entry) => entry.issuer === 'https://a.example');
    expect(a?.tokens).toEqual({
      tokens: { ...tokens('a-1', { expires_in: 60 }), issuer: 'https://a.example' },
      savedAt: 1_000_000,
      expiresAt: 1_060_000,
    });
  });

  it('keeps client registrations per issuer and ignores one made for another redirect URI', async () => {
    const { provider, credentialStore } = setup();
    await provider.saveClientInformation(
      { client_id: 'dcr-a', redirect_uris: [REDIRECT_URL] },
      { issuer: 'https://a.example' },
    );
    expect(await provider.clientInformation({ issuer: 'https://a.example' })).toEqual({
      client_id: 'dcr-a',
      redirect_uris: [REDIRECT_URL],
      issuer: 'https://a.example',
    });
    expect(await provider.clientInformation({ issuer: 'https://b.example' })).toBeUndefined();
    credentialStore.update(SERVER_URL, (current) => ({
      issuers: [
        ...(current?.issuers ?? []),
        {
          issuer: 'https://b.example',
          client: { client_id: 'old-port', redirect_uris: ['http://127.0.0.1:1/callback'] },
        },
      ],
    }));
    expect(await provider.clientInformation({ issuer: 'https://b.example' })).toBeUndefined();
  });

  it('returns pre-registered clients (single or per issuer) and never stores their secret', async () => {
    const single = setup({ preRegistered: { client_id: 'pre', client_secret: 'shh' } });
    expect(await single.provider.clientInformation({ issuer: 'https://a.example' })).toEqual({
      client_id: 'pre',
      client_secret: 'shh',
      issuer: 'https://a.example',
    });
    await single.provider.saveClientInformation(
      { client_id: 'pre', client_secret: 'shh' },
      { issuer: 'https://a.example' },
    );
    expect(single.credentialStore.read(SERVER_URL)).toBeUndefined();

    const perIssuer = setup({ preRegistered: { 'https://a.example/': { client_id: 'pre-a' } } });
    expect(await perIssuer.provider.clientInformation({ issuer: 'https://a.example' })).toEqual({
      client_id: 'pre-a',
      issuer: 'https://a.example',
    });
    expect(
      await perIssuer.provider.clientInformation({ issuer: 'https://b.example' }),
    ).toBeUndefined();
  });

  it('keeps the code verifier, state and discovery state in the flow store', async () => {
    const { provider, flowStore } = setup();
    const state = await provider.state();
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await provider.state()).not.toBe(state);
    await provider.saveCodeVerifier('verifier-1');
    await provider.saveDiscoveryState({ authorizationServerUrl: 'https://a.example' });
    expect(await provider.codeVerifier()).toBe('verifier-1');
    expect(await provider.discoveryState()).toEqual({
      authorizationServerUrl: 'https://a.example',
    });
    expect(flowStore.read(SERVER_URL)).toMatchObject({ codeVerifier: 'verifier-1' });
  });

  it('implements invalidateCredentials for all five scopes', async () => {
    const { provider, credentialStore, flowStore } = setup({
      preRegistered: { 'https://pre.example': { client_id: 'pre' } },
    });
    const fill = async () => {
      await provider.saveTokens(tokens('t', { refresh_token: 'r' }), {
        issuer: 'https://a.example',
      });
      await provider.saveClientInformation({ client_id: 'c' }, { issuer: 'https://a.example' });
      await provider.state();
      await provider.saveCodeVerifier('v');
      await provider.saveDiscoveryState({ authorizationServerUrl: 'https://a.example' });
    };
    await fill();
    await provider.invalidateCredentials('tokens');
    expect(await provider.tokens()).toBeUndefined();
    expect(await provider.clientInformation({ issuer: 'https://a.example' })).toMatchObject({
      client_id: 'c',
    });

    await provider.invalidateCredentials('client');
    expect(await provider.clientInformation({ issuer: 'https://a.example' })).toBeUndefined();
    expect(await provider.clientInformation({ issuer: 'https://pre.example' })).toMatchObject({
      client_id: 'pre',
    });
    expect(credentialStore.read(SERVER_URL)).toBeUndefined();

    await provider.invalidateCredentials('verifier');
    await expect(provider.codeVerifier()).rejects.toMatchObject({ code: 'needs_auth' });
    expect(await provider.discoveryState()).toBeDefined();

    await provider.invalidateCredentials('discovery');
    expect(await provider.discoveryState()).toBeUndefined();
    expect(flowStore.read(SERVER_URL)?.state).toBeDefined();

    await fill();
    await provider.invalidateCredentials('all');
    expect(credentialStore.read(SERVER_URL)).toBeUndefined();
    expect(flowStore.read(SERVER_URL)).toBeUndefined();
  });

  it('signs out of every issuer, keeping client registrations unless forgetClient', async () => {
    const { provider, flowStore } = setup();
    await provider.saveTokens(tokens('a'), { issuer: 'https://a.example' });
    await provider.saveTokens(tokens('b'), { issuer: 'https://b.example' });
    await provider.saveClientInformation({ client_id: 'c' }, { issuer: 'https://a.example' });
    await provider.saveCodeVerifier('v');
    await provider.state();
    await provider.signOut();
    expect(await provider.tokens()).toBeUndefined();
    expect(await provider.tokens({ issuer: 'https://a.example' })).toBeUndefined();
    expect(await provider.clientInformation({ issuer: 'https://a.example' })).toMatchObject({
      client_id: 'c',
    });
    expect(flowStore.read(SERVER_URL)).toBeUndefined();
    await provider.signOut({ forgetClient: true });
    expect(await provider.clientInformation({ issuer: 'https://a.example' })).toBeUndefined();
  });
});

describe('StoredOAuthProvider account state', () => {
  it('reports the latest tokens without secrets and notifies subscribers', async () => {
    const { provider, advance } = setup();
    const listener = vi.fn();
    const unsubscribe = provider.subscribe(listener);
    expect(await provider.accountState()).toEqual({ signedIn: false });
    await provider.saveTokens(tokens('a', { expires_in: 10, scope: 'read' }), {
      issuer: 'https://a.example',
    });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(await provider.accountState()).toEqual({
      signedIn: true,
      issuer: 'https://a.example',
      scope: 'read',
      expiresAt: 1_010_000,
    });
    advance(20_000);
    expect((await provider.accountState()).signedIn).toBe(false);
    await provider.saveTokens(tokens('b', { expires_in: 10, refresh_token: 'r' }), {
      issuer: 'https://a.example',
    });
    advance(20_000);
    expect((await provider.accountState()).signedIn).toBe(true);
    await provider.signOut();
    expect(listener).toHaveBeenCalledTimes(3);
    unsubscribe();
    unsubscribe();
    await provider.saveTokens(tokens('c'), { issuer: 'https://a.example' });
    expect(listener).toHaveBeenCalledTimes(3);
  });

  it('keeps calling listeners when one throws', async () => {
    const { provider } = setup();
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const second = vi.fn();
    provider.subscribe(() => {
      throw new Error('listener failed');
    });
    provider.subscribe(second);
    await provider.saveTokens(tokens('a'), { issuer: 'https://a.example' });
    expect(second).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalled();
  });
});

describe('StoredOAuthProvider with the SDK', () => {
  it('registers dynamically, authorizes with PKCE and stores tokens under the issuer', async () => {
    const server = fakeAuthorizationServer();
    const { provider } = setup();
    const { authorizationUrl } = await signIn(provider, server);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(REDIRECT_URL);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(server.serverUrl);
    expect(server.registered).toHaveLength(1);
    expect((await provider.tokens())?.access_token).toMatch(/^access-token-secret-/);
    expect(await provider.tokens({ issuer: server.issuer })).toMatchObject({
      issuer: server.issuer,
    });
    expect(await provider.clientInformation({ issuer: server.issuer })).toMatchObject({
      client_id: server.registered[0]?.client_id,
      issuer: server.issuer,
    });
    // A second provider on the same stores reuses the registration: no new registration.
    await provider.signOut();
    await signIn(provider, server);
    expect(server.registered).toHaveLength(1);
  });

  it('uses the client ID metadata document URL when the server supports it', async () => {
    const server = fakeAuthorizationServer({ clientIdMetadataDocuments: true });
    const clientMetadataUrl = 'https://app.example/oauth/client.json';
    const { provider } = setup({ clientMetadataUrl });
    const { authorizationUrl } = await signIn(provider, server);
    expect(authorizationUrl.searchParams.get('client_id')).toBe(clientMetadataUrl);
    expect(server.registered).toHaveLength(0);
  });

  it('uses a pre-registered client before anything else', async () => {
    const server = fakeAuthorizationServer({ clientIdMetadataDocuments: true });
    const { provider } = setup({
      preRegistered: { client_id: 'pre-registered' },
      clientMetadataUrl: 'https://app.example/oauth/client.json',
    });
    const { authorizationUrl } = await signIn(provider, server);
    expect(authorizationUrl.searchParams.get('client_id')).toBe('pre-registered');
    expect(server.registered).toHaveLength(0);
  });
});

describe('StoredOAuthProvider secrecy', () => {
  it('shows no token, code, verifier or secret in toString, JSON or inspect', async () => {
    const server = fakeAuthorizationServer();
    const { provider, credentialStore, flowStore } = setup({
      preRegistered: { client_id: 'pre', client_secret: `client${SECRET_MARKER}1` },
    });
    await signIn(provider, server);
    await provider.saveCodeVerifier(`verifier${SECRET_MARKER}1`);
    for (const text of [
      String(provider),
      JSON.stringify(provider),
      inspect(provider, { showHidden: true, depth: 10 }),
      inspect(credentialStore, { showHidden: true, depth: 10 }),
      inspect(flowStore, { showHidden: true, depth: 10 }),
      JSON.stringify(credentialStore),
      JSON.stringify(flowStore),
    ]) {
      expect(text).not.toContain(SECRET_MARKER);
    }
    expect(JSON.parse(JSON.stringify(provider))).toEqual({
      serverUrl: SERVER_URL,
      redirectUrl: REDIRECT_URL,
    });
  });

  it('says "start again" without a secret when the code verifier is missing', async () => {
    const { provider } = setup();
    const failure = await provider.codeVerifier().catch((error: unknown) => error);
    expect(isSwitchboardError(failure, 'needs_auth')).toBe(true);
    expect(String((failure as Error).message)).toContain('start it again');
  });
});
