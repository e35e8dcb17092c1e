import { auth } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryOAuthStore } from './memory-oauth-store.ts';
import { fakeAuthorizationServer } from './oauth-test-support.ts';
import type { OAuthFlowState, OAuthServerCredentials } from './oauth-stores.ts';
import { inProcessLock } from './refresh-lock.ts';
import { StoredOAuthProvider } from './stored-oauth-provider.ts';

let now = 1_000_000;

function setup(options: Parameters<typeof fakeAuthorizationServer>[0] = {}) {
  const server = fakeAuthorizationServer(options);
  const provider = new StoredOAuthProvider({
    serverUrl: server.serverUrl,
    redirectUrl: 'http://127.0.0.1:4567/callback',
    credentialStore: new MemoryOAuthStore<OAuthServerCredentials>(),
    flowStore: new MemoryOAuthStore<OAuthFlowState>(),
    now: () => now,
  });
  /** The AS, answering token requests after a short delay (so concurrent callers overlap). */
  const slowFetch: typeof fetch = async (input, init) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return await server.fetch(input, init);
  };
  return { server, provider, fetchFn: provider.coordinateTokenRequests(slowFetch) };
}

async function signIn({ server, provider }: ReturnType<typeof setup>) {
  await auth(provider, { serverUrl: server.serverUrl, fetchFn: server.fetch });
  const query = server.approve(provider.lastAuthorizationUrl ?? '');
  await auth(provider, {
    serverUrl: server.serverUrl,
    fetchFn: server.fetch,
    authorizationCode: query.get('code') ?? '',
    iss: query.get('iss') ?? '',
  });
  const tokens = await provider.tokens();
  if (tokens?.refresh_token === undefined) throw new Error('no refresh token');
  // A refresh comes later than "just now" (see JUST_REFRESHED_MS).
  now += 5_000;
  return tokens;
}

function refreshRequest(refreshToken: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  };
}

beforeEach(() => {
  now = 1_000_000;
  // The SDK warns when it invalidates credentials after invalid_grant; expected here.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('coordinateTokenRequests', () => {
  it('answers a refresh of tokens saved moments ago from them (a 401 that raced the refresh)', async () => {
    const context = setup();
    const { server, provider, fetchFn } = context;
    await signIn(context);
    expect(await auth(provider, { serverUrl: server.serverUrl, fetchFn })).toBe('AUTHORIZED');
    const refreshed = await provider.tokens();
    // A request sent with the old access token got its 401 just after the refresh finished: the
    // SDK asks to refresh the new tokens, which are answered as they are.
    now += 500;
    expect(await auth(provider, { serverUrl: server.serverUrl, fetchFn })).toBe('AUTHORIZED');
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    expect((await provider.tokens())?.access_token).toBe(refreshed?.access_token);
  });

  it('turns 5 concurrent refreshes with rotation into exactly 1 token request', async () => {
    const context = setup();
    const { server, provider, fetchFn } = context;
    const before = await signIn(context);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => auth(provider, { serverUrl: server.serverUrl, fetchFn })),
    );
    expect(results).toEqual(['AUTHORIZED', 'AUTHORIZED', 'AUTHORIZED', 'AUTHORIZED', 'AUTHORIZED']);
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    expect(server.tokenRequests('refresh_token')[0]?.form?.get('refresh_token')).toBe(
      before.refresh_token,
    );
    const after = await provider.tokens();
    expect(after?.access_token).not.toBe(before.access_token);
    expect(after?.refresh_token).not.toBe(before.refresh_token);
    // The stored refresh token is the live one: the next refresh works.
    now += 5_000;
    expect(await auth(provider, { serverUrl: server.serverUrl, fetchFn })).toBe('AUTHORIZED');
    expect(server.tokenRequests('refresh_token')).toHaveLength(2);
  });

  it('answers a stale refresh from the stored tokens without spending the old refresh token', async () => {
    const context = setup();
    const { server, provider, fetchFn } = context;
    const first = await signIn(context);
    await auth(provider, { serverUrl: server.serverUrl, fetchFn });
    const rotated = await provider.tokens();
    const response = await fetchFn(
      `${server.issuer}/token`,
      refreshRequest(first.refresh_token ?? ''),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      access_token: rotated?.access_token,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: rotated?.refresh_token,
    });
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
  });

  it('refreshes with the stored refresh token when the stored access token has expired', async () => {
    const context = setup();
    const { server, provider, fetchFn } = context;
    const first = await signIn(context);
    await auth(provider, { serverUrl: server.serverUrl, fetchFn });
    const rotated = await provider.tokens();
    now += 3_600_000;
    const response = await fetchFn(
      `${server.issuer}/token`,
      refreshRequest(first.refresh_token ?? ''),
    );
    expect(response.status).toBe(200);
    const requests = server.tokenRequests('refresh_token');
    expect(requests).toHaveLength(2);
    expect(requests[1]?.form?.get('refresh_token')).toBe(rotated?.refresh_token);
    expect((await provider.tokens())?.access_token).toBe(
      ((await response.json()) as { access_token: string }).access_token,
    );
  });

  it('answers invalid_grant after sign-out, so the SDK asks for a new authorization', async () => {
    const context = setup();
    const { server, provider, fetchFn } = context;
    const first = await signIn(context);
    await provider.signOut();
    const response = await fetchFn(
      `${server.issuer}/token`,
      refreshRequest(first.refresh_token ?? ''),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    expect(server.tokenRequests('refresh_token')).toHaveLength(0);
    // The SDK's refresh (with tokens it read before the sign-out) does not sign the user back in.
    await provider.saveTokens(first, { issuer: server.issuer });
    const stale = provider.tokens.bind(provider);
    vi.spyOn(provider, 'tokens').mockImplementation(async (ctx) => {
      const tokens = await stale(ctx);
      await provider.signOut();
      return tokens;
    });
    expect(await auth(provider, { serverUrl: server.serverUrl, fetchFn })).toBe('REDIRECT');
    expect(server.tokenRequests('refresh_token')).toHaveLength(0);
  });

  it('keeps the old refresh token when the server does not rotate it', async () => {
    const context = setup({ rotateRefreshTokens: false });
    const { server, provider, fetchFn } = context;
    const first = await signIn(context);
    const response = await fetchFn(
      `${server.issuer}/token`,
      refreshRequest(first.refresh_token ?? ''),
    );
    expect(response.status).toBe(200);
    const after = await provider.tokens();
    expect(after?.refresh_token).toBe(first.refresh_token);
    expect(after?.access_token).not.toBe(first.access_token);
  });

  it('recognizes a refresh sent as a Request with a form body', async () => {
    const context = setup();
    const { server, provider, fetchFn } = context;
    const first = await signIn(context);
    await auth(provider, { serverUrl: server.serverUrl, fetchFn });
    const request = new Request(`${server.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(first.refresh_token ?? '')}`,
    });
    const response = await fetchFn(request);
    expect(response.status).toBe(200);
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
  });

  it('passes every other request through untouched', async () => {
    const base = vi.fn(async () => new Response('ok'));
    const { provider } = setup();
    const wrapped = provider.coordinateTokenRequests(base);
    const json: RequestInit = { method: 'POST', body: '{"grant_type":"refresh_token"}' };
    const code: RequestInit = {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'c' }),
    };
    await wrapped('http://mcp.localhost/mcp', json);
    await wrapped('http://as.localhost/token', code);
    await wrapped('http://as.localhost/.well-known/oauth-authorization-server');
    expect(base.mock.calls).toEqual([
      ['http://mcp.localhost/mcp', json],
      ['http://as.localhost/token', code],
      ['http://as.localhost/.well-known/oauth-authorization-server', undefined],
    ]);
  });
});

describe('inProcessLock', () => {
  it('runs tasks of one name one at a time, in order, and others in parallel', async () => {
    const events: string[] = [];
    const task = (label: string, ms: number) => async () => {
      events.push(`start ${label}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`end ${label}`);
      return label;
    };
    const results = await Promise.all([
      inProcessLock('a', task('a1', 20)),
      inProcessLock('a', task('a2', 1)),
      inProcessLock('b', task('b1', 1)),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(events.indexOf('end a1')).toBeLessThan(events.indexOf('start a2'));
    expect(events.indexOf('start b1')).toBeLessThan(events.indexOf('end a1'));
  });

  it('rejects a waiter whose signal aborts without running it, and keeps the queue going', async () => {
    let release!: () => void;
    const held = inProcessLock('c', () => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const ran = vi.fn(async () => undefined);
    const waiting = inProcessLock('c', ran, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    const after = inProcessLock('c', async () => 'after');
    release();
    await held;
    expect(await after).toBe('after');
    expect(ran).not.toHaveBeenCalled();
  });
});
