// fake-indexeddb's IDB* classes as globals (jsdom has none) for `idb`; each test gets its own
// fresh IDBFactory.
import 'fake-indexeddb/auto';
import { auth, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import {
  browserOAuthProvider,
  type BrowserOAuthProviderOptions,
} from './browser-oauth-provider.ts';
import { completeOAuthRedirect } from './complete-oauth-redirect.ts';
import type { InteractiveOAuthProvider } from './interactive-oauth-provider.ts';
import { OAUTH_CALLBACK_MESSAGE_TYPE } from './oauth-redirect-channel.ts';
import { fakeAuthorizationServer, SECRET_MARKER } from './oauth-test-support.ts';
import type { StoredOAuthProvider } from './stored-oauth-provider.ts';

const APP_ORIGIN = 'http://localhost:3000';
const REDIRECT_URL = `${APP_ORIGIN}/oauth-callback.html`;

let factory: IDBFactory;

beforeEach(() => {
  factory = new IDBFactory();
  sessionStorage.clear();
  // The SDK warns when it invalidates credentials after invalid_grant; expected here.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

function provider(
  options: Partial<BrowserOAuthProviderOptions> & { serverUrl?: string } = {},
): InteractiveOAuthProvider & StoredOAuthProvider {
  return browserOAuthProvider({
    serverUrl: 'http://mcp.localhost/mcp',
    redirectUrl: REDIRECT_URL,
    indexedDB: factory,
    ...options,
  }) as InteractiveOAuthProvider & StoredOAuthProvider;
}

/** A stand-in for the popup `window.open` returns. */
function fakePopup() {
  const popup = {
    closed: false,
    close: vi.fn(() => {
      popup.closed = true;
    }),
    focus: vi.fn(),
  };
  return popup;
}

/** The callback page in `source` posting `query` to this window, from `origin`. */
function postCallback(source: unknown, query: URLSearchParams | string, origin = APP_ORIGIN) {
  window.dispatchEvent(
    new MessageEvent('message', {
      origin,
      source: source as Window,
      data: { type: OAUTH_CALLBACK_MESSAGE_TYPE, query: `?${String(query)}` },
    }),
  );
}

/** Runs the SDK up to its authorization URL. */
async function startAuthorization(
  subject: StoredOAuthProvider,
  server: ReturnType<typeof fakeAuthorizationServer>,
) {
  expect(await auth(subject, { serverUrl: server.serverUrl, fetchFn: server.fetch })).toBe(
    'REDIRECT',
  );
  const url = subject.lastAuthorizationUrl;
  if (url === undefined) throw new Error('no authorization URL');
  return url;
}

async function finish(
  subject: StoredOAuthProvider,
  server: ReturnType<typeof fakeAuthorizationServer>,
  query: URLSearchParams | undefined,
) {
  return await auth(subject, {
    serverUrl: server.serverUrl,
    fetchFn: server.fetch,
    authorizationCode: query?.get('code') ?? '',
    iss: query?.get('iss') ?? '',
  });
}

async function failureOf(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (failure: unknown) => failure,
  );
  if (!isSwitchboardError(error)) throw error;
  return error;
}

function expectNoSecret(error: SwitchboardError) {
  expect(error.message).not.toContain(SECRET_MARKER);
  expect(JSON.stringify(error.details ?? {})).not.toContain(SECRET_MARKER);
}

const tokens = (accessToken: string): StoredOAuthTokens => ({
  access_token: accessToken,
  token_type: 'Bearer',
  refresh_token: `refresh-${accessToken}`,
});

describe('browserOAuthProvider storage', () => {
  it('persists tokens in IndexedDB across instances, keyed by server URL and issuer', async () => {
    await provider().saveTokens(tokens('a'), { issuer: 'https://a.example' });
    await provider().saveTokens(tokens('b'), { issuer: 'https://b.example' });
    const reloaded = provider();
    expect((await reloaded.tokens({ issuer: 'https://a.example' }))?.access_token).toBe('a');
    expect((await reloaded.tokens({ issuer: 'https://b.example' }))?.access_token).toBe('b');
    expect((await reloaded.tokens())?.access_token).toBe('b');
    expect(await reloaded.accountState()).toEqual({
      signedIn: true,
      issuer: 'https://b.example',
    });
    const other = provider({ serverUrl: 'http://other.localhost/mcp' });
    expect(await other.tokens()).toBeUndefined();
    expect(await other.tokens({ issuer: 'https://a.example' })).toBeUndefined();
    const otherDatabase = provider({ databaseName: 'elsewhere' });
    expect(await otherDatabase.tokens()).toBeUndefined();
  });

  it('keeps the verifier, state and discovery state in sessionStorage across a reload', async () => {
    const server = fakeAuthorizationServer();
    const first = provider();
    const url = await startAuthorization(first, server);
    const raw = sessionStorage.getItem(`switchboard.oauth.flow:${server.serverUrl}`);
    expect(JSON.parse(raw ?? '{}')).toMatchObject({
      state: url.searchParams.get('state'),
      codeVerifier: expect.any(String),
      discoveryState: { authorizationServerUrl: server.issuer },
    });
    const reloaded = provider();
    expect(await reloaded.codeVerifier()).toBe(await first.codeVerifier());
    expect(await reloaded.discoveryState()).toMatchObject({
      authorizationServerUrl: server.issuer,
    });
    // Nothing of the flow is in IndexedDB; nothing of the tokens in sessionStorage.
    expect(raw).not.toContain('access-token');
  });

  it('signs out of every issuer, keeping the client unless forgetClient', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider();
    const url = await startAuthorization(subject, server);
    await finish(subject, server, server.approve(url));
    await subject.saveTokens(tokens('other'), { issuer: 'https://other.example' });
    await subject.signOut();
    const reloaded = provider();
    expect(await reloaded.tokens()).toBeUndefined();
    expect(await reloaded.tokens({ issuer: server.issuer })).toBeUndefined();
    expect(await reloaded.tokens({ issuer: 'https://other.example' })).toBeUndefined();
    expect(await reloaded.accountState()).toEqual({ signedIn: false });
    expect(await reloaded.clientInformation({ issuer: server.issuer })).toMatchObject({
      client_id: server.registered[0]?.client_id,
    });
    expect(sessionStorage.length).toBe(0);
    await reloaded.signOut({ forgetClient: true });
    expect(await provider().clientInformation({ issuer: server.issuer })).toBeUndefined();
  });

  it('notifies subscribers here and in other instances (BroadcastChannel)', async () => {
    const here = provider();
    const there = provider();
    const elsewhere = provider({ serverUrl: 'http://other.localhost/mcp' });
    const local = vi.fn();
    const remote = vi.fn();
    const unrelated = vi.fn();
    here.subscribe(local);
    const stop = there.subscribe(remote);
    elsewhere.subscribe(unrelated);
    await here.saveTokens(tokens('a'), { issuer: 'https://a.example' });
    expect(local).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(remote).toHaveBeenCalledTimes(1));
    await here.signOut();
    await vi.waitFor(() => expect(remote).toHaveBeenCalledTimes(2));
    stop();
    await here.saveTokens(tokens('b'), { issuer: 'https://a.example' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(remote).toHaveBeenCalledTimes(2);
    expect(local).toHaveBeenCalledTimes(3);
    expect(unrelated).not.toHaveBeenCalled();
  });
});

describe('browserOAuthProvider popup', () => {
  it('opens the popup synchronously and resolves with the checked callback', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider();
    const url = await startAuthorization(subject, server);
    const popup = fakePopup();
    const open = vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    const answer = subject.authorize(url);
    // Before any await: within the click's user activation.
    expect(open).toHaveBeenCalledWith(url.href, 'switchboard-oauth', 'popup,width=520,height=720');
    const query = server.approve(url);
    postCallback(popup, query);
    const result = await answer;
    expect(result?.toString()).toBe(query.toString());
    expect(await finish(subject, server, result)).toBe('AUTHORIZED');
    expect(await subject.accountState()).toMatchObject({ signedIn: true, issuer: server.issuer });
    // One use: the state is gone.
    expect(
      JSON.parse(sessionStorage.getItem(`switchboard.oauth.flow:${server.serverUrl}`) ?? '{}'),
    ).not.toHaveProperty('state');
  });

  it('ignores messages from another origin, another window, or without the type tag', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider({ timeoutMs: 2000 });
    const url = await startAuthorization(subject, server);
    const popup = fakePopup();
    vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    const answer = subject.authorize(url);
    let settled = false;
    void answer.finally(() => (settled = true)).catch(() => undefined);
    const forged = server.approve(url);
    postCallback(popup, forged, 'https://evil.example');
    postCallback(fakePopup(), forged);
    window.dispatchEvent(
      new MessageEvent('message', { origin: APP_ORIGIN, source: popup as never, data: 'x' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    const real = server.approve(url);
    postCallback(popup, real);
    expect((await answer)?.get('code')).toBe(real.get('code'));
  });

  it('rejects another state, a denial and a missing code with needs_auth, without secrets', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider();
    const url = await startAuthorization(subject, server);
    const popup = fakePopup();
    vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);

    const mismatch = subject.authorize(url);
    const forged = server.approve(url);
    forged.set('state', 'forged');
    postCallback(popup, forged);
    const mismatchError = await failureOf(mismatch);
    expect(mismatchError.details).toMatchObject({ reason: 'state_mismatch' });
    expectNoSecret(mismatchError);

    const denied = subject.authorize(url);
    const denial = server.deny(url);
    denial.set('code', `leaked${SECRET_MARKER}code`);
    postCallback(popup, denial);
    const deniedError = await failureOf(denied);
    expect(deniedError.details).toMatchObject({ reason: 'denied', error: 'access_denied' });
    expect(deniedError.message).toContain('access_denied');
    expect(deniedError.message).toContain('The user said no');
    expectNoSecret(deniedError);

    // A denial leaves the state issued (the user may click Connect again with the same URL);
    // a good answer uses it up, so replaying that answer then mismatches.
    const again = subject.authorize(url);
    const approval = server.approve(url);
    postCallback(popup, approval);
    expect((await again)?.get('code')).toBe(approval.get('code'));
    const replay = subject.authorize(url);
    postCallback(popup, approval);
    expect((await failureOf(replay)).details).toMatchObject({ reason: 'state_mismatch' });
  });

  it('rejects when the popup is closed, times out or the signal aborts', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider({ popupPollIntervalMs: 5, timeoutMs: 60 });
    const url = await startAuthorization(subject, server);

    const closedPopup = fakePopup();
    vi.spyOn(window, 'open').mockReturnValue(closedPopup as unknown as Window);
    const closed = subject.authorize(url);
    closedPopup.closed = true;
    const closedError = await failureOf(closed);
    expect(closedError.code).toBe('needs_auth');
    expect(closedError.details).toMatchObject({ reason: 'closed' });

    const slowPopup = fakePopup();
    vi.spyOn(window, 'open').mockReturnValue(slowPopup as unknown as Window);
    const timedOut = await failureOf(subject.authorize(url));
    expect(timedOut.details).toMatchObject({ reason: 'timeout' });
    expect(slowPopup.close).toHaveBeenCalled();

    const abortedPopup = fakePopup();
    const open = vi.spyOn(window, 'open').mockReturnValue(abortedPopup as unknown as Window);
    const controller = new AbortController();
    const aborted = subject.authorize(url, { signal: controller.signal });
    controller.abort();
    expect((await failureOf(aborted)).code).toBe('aborted');
    expect(abortedPopup.close).toHaveBeenCalled();
    open.mockClear();
    expect((await failureOf(subject.authorize(url, { signal: controller.signal }))).code).toBe(
      'aborted',
    );
    expect((await failureOf(subject.authorize(new URL('javascript:alert(1)')))).code).toBe(
      'invalid_input',
    );
    expect(open).not.toHaveBeenCalled();
  });

  it('accepts a message queued just before the popup closed itself', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider({ popupPollIntervalMs: 5 });
    const url = await startAuthorization(subject, server);
    // The popup reads as closed from the start, and the callback page's message arrives right
    // after the first check that saw it closed (so before the second check), whatever the
    // machine's timer delays: the message must still be taken.
    const query = server.approve(url);
    let delivered = false;
    const popup = {
      focus: vi.fn(),
      close: vi.fn(),
      get closed() {
        if (!delivered) {
          delivered = true;
          queueMicrotask(() => postCallback(popup, query));
        }
        return true;
      },
    };
    vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    const answer = subject.authorize(url);
    expect((await answer)?.get('code')).toMatch(/^authorization-code-secret-/);
    expect(delivered).toBe(true);
  });
});

describe('browserOAuthProvider redirect fallback', () => {
  it('navigates when the popup is blocked, then takeRedirectCallback returns the answer once', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider();
    const url = await startAuthorization(subject, server);
    vi.spyOn(window, 'open').mockReturnValue(null);
    const assign = vi.fn();
    vi.stubGlobal('location', { href: `${APP_ORIGIN}/app?tab=2`, assign });
    expect(await subject.authorize(url)).toBeUndefined();
    expect(assign).toHaveBeenCalledWith(url.href);
    vi.unstubAllGlobals();

    // The authorization server sends the page to the callback page.
    const query = server.approve(url);
    const replace = vi.fn();
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    vi.stubGlobal('location', {
      href: `${REDIRECT_URL}?${query}`,
      origin: APP_ORIGIN,
      search: `?${query}`,
      replace,
    });
    expect(completeOAuthRedirect()).toBe('redirected');
    expect(replace).toHaveBeenCalledWith(`${APP_ORIGIN}/app?tab=2`);
    expect(close).not.toHaveBeenCalled();
    vi.unstubAllGlobals();

    // Back on the app page (a new provider, as after a reload).
    const reloaded = provider();
    const callback = await reloaded.takeRedirectCallback();
    expect(callback?.get('code')).toBe(query.get('code'));
    expect(await reloaded.takeRedirectCallback()).toBeUndefined();
    expect(await finish(reloaded, server, callback)).toBe('AUTHORIZED');
    expect(await provider().accountState()).toMatchObject({ signedIn: true });
  });

  it('returns nothing without a pending redirect, and rejects a stored denial', async () => {
    const server = fakeAuthorizationServer();
    const subject = provider();
    expect(await subject.takeRedirectCallback()).toBeUndefined();
    const url = await startAuthorization(subject, server);
    expect(await subject.takeRedirectCallback()).toBeUndefined();
    const denial = server.deny(url);
    vi.stubGlobal('location', {
      href: `${REDIRECT_URL}?${denial}`,
      origin: APP_ORIGIN,
      search: `?${denial}`,
      replace: vi.fn(),
    });
    completeOAuthRedirect();
    vi.unstubAllGlobals();
    const error = await failureOf(subject.takeRedirectCallback());
    expect(error.details).toMatchObject({ reason: 'denied' });
    expect(await subject.takeRedirectCallback()).toBeUndefined();
  });
});

describe('browserOAuthProvider refresh coordination', () => {
  let clock = Date.now();
  const now = () => clock;

  async function signedIn(subject: StoredOAuthProvider) {
    const server = fakeAuthorizationServer();
    const url = await startAuthorization(subject, server);
    await finish(subject, server, server.approve(url));
    // The refreshes come a while after the sign-in (not "just refreshed").
    clock += 5_000;
    const slow: typeof fetch = async (input, init) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return await server.fetch(input, init);
    };
    return { server, fetchFn: subject.coordinateTokenRequests(slow) };
  }

  it('serializes refreshes in the page without Web Locks: one refresh for five 401s', async () => {
    expect((navigator as { locks?: unknown }).locks).toBeUndefined();
    const subject = provider({ now });
    const { server, fetchFn } = await signedIn(subject);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => auth(subject, { serverUrl: server.serverUrl, fetchFn })),
    );
    expect(new Set(results)).toEqual(new Set(['AUTHORIZED']));
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
  });

  it('takes a Web Lock named after the server when navigator.locks exists', async () => {
    const names: string[] = [];
    let queue = Promise.resolve();
    const locks = {
      request: vi.fn(
        (name: string, _options: unknown, callback: () => Promise<unknown>): Promise<unknown> => {
          names.push(name);
          const run = queue.then(callback);
          queue = run.then(
            () => undefined,
            () => undefined,
          );
          return run;
        },
      ),
    };
    vi.stubGlobal('navigator', { ...navigator, locks });
    const subject = provider({ now });
    const { server, fetchFn } = await signedIn(subject);
    const results = await Promise.all(
      Array.from({ length: 3 }, () => auth(subject, { serverUrl: server.serverUrl, fetchFn })),
    );
    expect(new Set(results)).toEqual(new Set(['AUTHORIZED']));
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    expect(names).toEqual(Array(3).fill(`switchboard-oauth-refresh ${server.serverUrl}`));
  });
});
