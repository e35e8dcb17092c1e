import { auth } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryOAuthStore } from './memory-oauth-store.ts';
import { fakeAuthorizationServer } from './oauth-test-support.ts';
import type { OAuthFlowState, OAuthServerCredentials } from './oauth-stores.ts';
import { StoredOAuthProvider } from './stored-oauth-provider.ts';

let now = 1_000_000;

function setup() {
  const server = fakeAuthorizationServer();
  const provider = new StoredOAuthProvider({
    serverUrl: server.serverUrl,
    redirectUrl: 'http://127.0.0.1:4567/callback',
    credentialStore: new MemoryOAuthStore<OAuthServerCredentials>(),
    flowStore: new MemoryOAuthStore<OAuthFlowState>(),
    now: () => now,
  });
  return { server, provider };
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
  now += 5_000; // later than "just refreshed"
}

function isRefresh(init: RequestInit | undefined): boolean {
  return init?.body instanceof URLSearchParams && init.body.get('grant_type') === 'refresh_token';
}

beforeEach(() => {
  now = 1_000_000;
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('coordinateTokenRequests and sign-out (adversarial)', () => {
  it('drops a refresh answer that arrives after a sign-out, and tells the SDK the grant is gone', async () => {
    const context = setup();
    await signIn(context);
    const { server, provider } = context;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sent!: () => void;
    const onTheWire = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const held: typeof fetch = async (input, init) => {
      const response = await server.fetch(input, init);
      if (isRefresh(init)) {
        sent();
        await gate;
      }
      return response;
    };
    const refreshing = auth(provider, {
      serverUrl: server.serverUrl,
      fetchFn: provider.coordinateTokenRequests(held),
    });
    await onTheWire;
    await provider.signOut();
    release();
    // The SDK, told invalid_grant, asks for a new authorization instead of signing back in.
    expect(await refreshing).toBe('REDIRECT');
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    expect(await provider.tokens()).toBeUndefined();
    expect((await provider.accountState()).signedIn).toBe(false);
  });

  it('does not let the SDK store a coordinated answer again after a sign-out that landed in between', async () => {
    const context = setup();
    await signIn(context);
    const { server, provider } = context;
    const coordinated = provider.coordinateTokenRequests(server.fetch);
    // The sign-out lands right after the coordinator answered, before the SDK saves the answer.
    const signOutAfterAnswer: typeof fetch = async (input, init) => {
      const response = await coordinated(input, init);
      if (isRefresh(init)) await provider.signOut();
      return response;
    };
    await auth(provider, { serverUrl: server.serverUrl, fetchFn: signOutAfterAnswer });
    expect(await provider.tokens()).toBeUndefined();
    expect((await provider.accountState()).signedIn).toBe(false);
  });

  it('still stores what a coordinated refresh returned when nobody signed out', async () => {
    const context = setup();
    await signIn(context);
    const { server, provider } = context;
    const before = await provider.tokens();
    expect(
      await auth(provider, {
        serverUrl: server.serverUrl,
        fetchFn: provider.coordinateTokenRequests(server.fetch),
      }),
    ).toBe('AUTHORIZED');
    const after = await provider.tokens();
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(after?.refresh_token).not.toBe(before?.refresh_token);
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
  });
});

describe('coordinateTokenRequests across issuers (adversarial)', () => {
  // Two authorization servers' tokens under one MCP server (it moved from X to Y; another tab
  // still on X saved last). A refresh meant for Y whose refresh token was already rotated must
  // never be answered with X's tokens nor carry X's refresh token to Y's token endpoint.
  it("never sends issuer X's refresh token to issuer Y's token endpoint, nor answers with X's tokens", async () => {
    const { provider } = setup();
    const issuerX = 'https://x.example';
    const issuerY = 'https://y.example';
    await provider.saveTokens(
      {
        access_token: 'y-access-2',
        token_type: 'Bearer',
        refresh_token: 'y-refresh-2',
        expires_in: 60,
      },
      { issuer: issuerY },
    );
    await provider.saveTokens(
      {
        access_token: 'x-access',
        token_type: 'Bearer',
        refresh_token: 'x-refresh',
        expires_in: 60,
      },
      { issuer: issuerX },
    );
    const sent: string[] = [];
    const network: typeof fetch = async (_input, init) => {
      sent.push(String(init?.body));
      return Response.json({ error: 'invalid_grant' }, { status: 400 });
    };
    const fetchFn = provider.coordinateTokenRequests(network);
    const refreshOfY = () =>
      fetchFn(`${issuerY}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'y-refresh-1' }),
      });

    // X's access token is fresh: the coordinator must not hand it out as Y's.
    const fresh = await refreshOfY();
    expect(await fresh.text()).not.toContain('x-access');

    // X's access token expired: the coordinator must not spend X's refresh token at Y.
    now += 120_000;
    await (await refreshOfY()).text();
    expect(sent.join('\n')).not.toContain('x-refresh');
  });
});
