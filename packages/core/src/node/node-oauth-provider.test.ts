import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { auth } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import { fakeAuthorizationServer, SECRET_MARKER } from '../oauth/oauth-test-support.ts';
import type { StoredOAuthProvider } from '../oauth/stored-oauth-provider.ts';
import {
  nodeOAuthProvider,
  type NodeOAuthProvider,
  type NodeOAuthProviderOptions,
} from './node-oauth-provider.ts';

const opened: NodeOAuthProvider[] = [];
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchboard-node-oauth-'));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((provider) => provider.close()));
  await rm(directory, { recursive: true, force: true });
});

type Browser = (url: string, provider: NodeOAuthProvider) => Promise<void> | void;

/** A provider whose "browser" is `browser`, against the fake authorization server. */
async function setup(
  browser: Browser,
  options: Partial<NodeOAuthProviderOptions> & {
    server?: ReturnType<typeof fakeAuthorizationServer>;
  } = {},
) {
  const server = options.server ?? fakeAuthorizationServer();
  const pages: { status: number; body: string }[] = [];
  const browsing: Promise<void>[] = [];
  const provider = await nodeOAuthProvider({
    serverUrl: server.serverUrl,
    openBrowser: (url) => {
      const visit = (async () => {
        await browser(url, provider);
      })();
      browsing.push(visit.catch(() => undefined));
      return visit;
    },
    ...options,
  });
  opened.push(provider);
  /** The browser arriving at the loopback redirect URI with `query`. */
  const arrive = async (query: URLSearchParams) => {
    const response = await fetch(`${provider.redirectUrl}?${query}`);
    pages.push({ status: response.status, body: await response.text() });
  };
  /** Runs the SDK up to the authorization URL it asks the user to visit. */
  const startAuthorization = async () => {
    expect(await auth(provider, { serverUrl: server.serverUrl, fetchFn: server.fetch })).toBe(
      'REDIRECT',
    );
    const url = (provider as unknown as StoredOAuthProvider).lastAuthorizationUrl;
    if (url === undefined) throw new Error('no authorization URL');
    return url;
  };
  /** Waits until every browser visit has received its page. */
  const browsed = async () => {
    await Promise.all(browsing);
  };
  return { server, provider, pages, arrive, startAuthorization, browsed };
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

describe('nodeOAuthProvider', () => {
  it('opens the browser, takes the loopback callback and lets the SDK exchange the code', async () => {
    const context: Awaited<ReturnType<typeof setup>> = await setup(async (url) => {
      await context.arrive(context.server.approve(url));
    });
    const { server, provider, pages, startAuthorization } = context;
    expect(provider.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(provider.clientMetadata.redirect_uris).toEqual([provider.redirectUrl]);
    const url = await startAuthorization();
    expect(url.searchParams.get('redirect_uri')).toBe(provider.redirectUrl);
    const query = await provider.authorize(url);
    expect(query?.get('code')).toMatch(/^authorization-code-secret-/);
    expect(query?.get('iss')).toBe(server.issuer);
    await context.browsed();
    expect(pages).toEqual([{ status: 200, body: expect.stringContaining('close this tab') }]);
    expect(pages[0]?.body).not.toContain(SECRET_MARKER);
    expect(
      await auth(provider, {
        serverUrl: server.serverUrl,
        fetchFn: server.fetch,
        authorizationCode: query?.get('code') ?? '',
        iss: query?.get('iss') ?? '',
      }),
    ).toBe('AUTHORIZED');
    expect(await provider.accountState()).toMatchObject({ signedIn: true, issuer: server.issuer });
    expect(await provider.takeRedirectCallback()).toBeUndefined();
    // The state was used once: the same answer again is refused.
    await context.arrive(query ?? new URLSearchParams());
    expect(pages[1]?.status).toBe(400);
  });

  it('rejects a denial with needs_auth quoting the OAuth error, never a code', async () => {
    const context: Awaited<ReturnType<typeof setup>> = await setup(async (url) => {
      const denial = context.server.deny(url);
      denial.set('code', `leaked${SECRET_MARKER}code`);
      await context.arrive(denial);
    });
    const url = await context.startAuthorization();
    const error = await failureOf(context.provider.authorize(url));
    expect(error.code).toBe('needs_auth');
    expect(error.details).toMatchObject({ reason: 'denied', error: 'access_denied' });
    expect(error.message).toContain('access_denied');
    expect(error.message).toContain('The user said no');
    expectNoSecret(error);
    await context.browsed();
    expect(context.pages[0]?.status).toBe(400);
  });

  it('ignores an answer with another state and keeps waiting for the real one', async () => {
    const context: Awaited<ReturnType<typeof setup>> = await setup(async (url) => {
      const forged = context.server.approve(url);
      forged.set('state', 'forged');
      await context.arrive(forged);
      await context.arrive(context.server.approve(url));
    });
    const url = await context.startAuthorization();
    const answer = await context.provider.authorize(url);
    expect(answer?.get('state')).toBe(url.searchParams.get('state'));
    await context.browsed();
    expect(context.pages.map((page) => page.status)).toEqual([400, 200]);
  });

  it('times out, aborts, and reports a browser that cannot be opened', async () => {
    const idle = await setup(() => undefined, { timeoutMs: 50 });
    const url = await idle.startAuthorization();
    const timeout = await failureOf(idle.provider.authorize(url));
    expect(timeout.details).toMatchObject({ reason: 'timeout' });

    const controller = new AbortController();
    const pending = idle.provider.authorize(url, { signal: controller.signal });
    controller.abort();
    expect((await failureOf(pending)).code).toBe('aborted');
    expect(
      (await failureOf(idle.provider.authorize(url, { signal: controller.signal }))).code,
    ).toBe('aborted');

    const broken = await setup(() => {
      throw new Error('no display');
    });
    const failure = await failureOf(broken.provider.authorize(await broken.startAuthorization()));
    expect(failure.details).toMatchObject({ reason: 'open_failed' });
    expect(failure.cause).toEqual(new Error('no display'));

    expect((await failureOf(idle.provider.authorize(new URL('javascript:alert(1)')))).code).toBe(
      'invalid_input',
    );
  });

  it('replaces a pending authorization with a newer one', async () => {
    const { provider, startAuthorization } = await setup(() => undefined);
    const url = await startAuthorization();
    const first = provider.authorize(url);
    const second = provider.authorize(url);
    expect((await failureOf(first)).details).toMatchObject({ reason: 'closed' });
    await provider.close();
    expect((await failureOf(second)).code).toBe('aborted');
    await expect(fetch(provider.redirectUrl)).rejects.toThrow();
    expect((await failureOf(provider.authorize(url))).code).toBe('invalid_input');
  });

  it('keeps credentials in a file across providers and re-registers for a new port', async () => {
    const server = fakeAuthorizationServer();
    const credentialsFile = join(directory, 'oauth.json');
    const context: Awaited<ReturnType<typeof setup>> = await setup(
      async (url) => {
        await context.arrive(server.approve(url));
      },
      { server, credentialsFile },
    );
    const query = await context.provider.authorize(await context.startAuthorization());
    await auth(context.provider, {
      serverUrl: server.serverUrl,
      fetchFn: server.fetch,
      authorizationCode: query?.get('code') ?? '',
      iss: query?.get('iss') ?? '',
    });
    await context.provider.close();

    const next = await setup(() => undefined, { server, credentialsFile });
    expect(next.provider.redirectUrl).not.toBe(context.provider.redirectUrl);
    expect(await next.provider.accountState()).toMatchObject({ signedIn: true });
    expect((await next.provider.tokens())?.access_token).toMatch(/^access-token-secret-/);
    // The stored registration names the old port: it is not reused.
    expect(await next.provider.clientInformation({ issuer: server.issuer })).toBeUndefined();
    await next.provider.signOut();
    await next.startAuthorization();
    expect(server.registered).toHaveLength(2);
  });

  it('shows no secret in toString, JSON or inspect', async () => {
    const context: Awaited<ReturnType<typeof setup>> = await setup(async (url) => {
      await context.arrive(context.server.approve(url));
    });
    const query = await context.provider.authorize(await context.startAuthorization());
    await auth(context.provider, {
      serverUrl: context.server.serverUrl,
      fetchFn: context.server.fetch,
      authorizationCode: query?.get('code') ?? '',
      iss: query?.get('iss') ?? '',
    });
    for (const text of [
      String(context.provider),
      JSON.stringify(context.provider),
      inspect(context.provider, { showHidden: true, depth: 10 }),
    ]) {
      expect(text).not.toContain(SECRET_MARKER);
    }
  });

  it('needs openBrowser', async () => {
    await expect(
      nodeOAuthProvider({ serverUrl: 'http://mcp.localhost/mcp' } as NodeOAuthProviderOptions),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    const spy = vi.fn();
    await expect(
      nodeOAuthProvider({ serverUrl: 'nonsense', openBrowser: spy }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
