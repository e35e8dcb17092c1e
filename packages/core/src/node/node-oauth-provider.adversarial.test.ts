import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { nodeOAuthProvider, type NodeOAuthProvider } from './node-oauth-provider.ts';

/**
 * Adversarial tests of the Node OAuth provider wired into `McpServer`, against the real demo
 * server and test authorization server on 127.0.0.1.
 */

const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(() => {
  // The SDK warns when it invalidates credentials after invalid_grant; expected in some tests.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

type Decision = 'allow' | 'deny';

/** What the "browser" saw: every loopback callback URL (they carry the codes). */
interface BrowserLog {
  callbacks: URL[];
}

/**
 * A "system browser" for the test authorization server: with consent `auto` it follows the 302;
 * with consent `page` it submits the consent form with the next of `decisions`.
 */
function browser(log: BrowserLog, decisions: Decision[] = []) {
  return async (url: string): Promise<void> => {
    const first = await fetch(url, { redirect: 'manual' });
    let location = first.headers.get('location');
    if (location === null) {
      const html = await first.text();
      const requestId = /name="request_id" value="([^"]+)"/.exec(html)?.[1];
      if (requestId === undefined) throw new Error(`No consent form (${first.status}).`);
      const decision = decisions.shift() ?? 'allow';
      const consent = await fetch(new URL('/consent', url), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ request_id: requestId, username: 'demo-user', decision }),
      });
      await consent.body?.cancel();
      location = consent.headers.get('location');
    } else {
      await first.body?.cancel();
    }
    if (location === null) throw new Error('The authorization server did not redirect.');
    const callback = new URL(location, url);
    log.callbacks.push(callback);
    await (await fetch(callback)).text();
  };
}

/** Every secret the authorization server handed out or the client sent, seen on the wire. */
interface WireSecrets {
  values: Set<string>;
}

/**
 * A `fetch` for `McpServer` that records token-endpoint secrets (codes, verifiers, tokens) and
 * lets a test hold refresh answers (`holdRefreshes`) or fail the next code exchange.
 */
function recordingFetch(secrets: WireSecrets, authorizationServerUrl: string) {
  const control = {
    failNextCodeExchange: false,
    /** Resolved when a refresh request reached the authorization server. */
    onRefreshSent: undefined as (() => void) | undefined,
    /** Awaited before a refresh answer is handed back. */
    refreshGate: undefined as Promise<void> | undefined,
  };
  const wrapped: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = init?.body;
    const form =
      body instanceof URLSearchParams
        ? body
        : typeof body === 'string' && !body.startsWith('{')
          ? new URLSearchParams(body)
          : undefined;
    const isToken = url.startsWith(authorizationServerUrl) && form?.has('grant_type') === true;
    if (isToken && form !== undefined) {
      for (const name of ['code', 'code_verifier', 'refresh_token', 'client_secret']) {
        const value = form.get(name);
        if (value !== null && value !== '') secrets.values.add(value);
      }
      if (control.failNextCodeExchange && form.get('grant_type') === 'authorization_code') {
        control.failNextCodeExchange = false;
        return new Response('temporarily unavailable', { status: 503 });
      }
    }
    const response = await fetch(input, init);
    if (isToken && response.ok) {
      const tokens = (await response.clone().json()) as Record<string, unknown>;
      for (const name of ['access_token', 'refresh_token', 'id_token']) {
        const value = tokens[name];
        if (typeof value === 'string') secrets.values.add(value);
      }
    }
    if (isToken && form?.get('grant_type') === 'refresh_token') {
      control.onRefreshSent?.();
      if (control.refreshGate !== undefined) await control.refreshGate;
    }
    return response;
  };
  return { fetch: wrapped, control };
}

async function start(options: { consent: 'auto' | 'page'; accessTokenTtlMs?: number }) {
  const demo: DemoServer = await startDemoServer({ toolCount: 0, oauth: options });
  cleanups.push(() => demo.close());
  const { protectedUrl, authorizationServerUrl } = demo;
  if (protectedUrl === undefined || authorizationServerUrl === undefined) {
    throw new Error('The demo server has no OAuth endpoint.');
  }
  return { demo, protectedUrl, authorizationServerUrl };
}

async function setup(
  options: {
    consent: 'auto' | 'page';
    accessTokenTtlMs?: number;
    decisions?: Decision[];
    timeoutMs?: number;
  } = { consent: 'auto' },
) {
  const { demo, protectedUrl, authorizationServerUrl } = await start(options);
  const log: BrowserLog = { callbacks: [] };
  const provider: NodeOAuthProvider = await nodeOAuthProvider({
    serverUrl: protectedUrl,
    openBrowser: browser(log, options.decisions ?? []),
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  cleanups.push(() => provider.close());
  const secrets: WireSecrets = { values: new Set() };
  const wire = recordingFetch(secrets, authorizationServerUrl);
  const server: McpServer = mcpServer({
    url: protectedUrl,
    name: 'protected',
    authProvider: provider,
    fetch: wire.fetch,
    timeoutMs: 10_000,
  });
  cleanups.push(() => server.close());
  return { demo, provider, server, log, secrets, control: wire.control };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('McpServer + nodeOAuthProvider under failure (adversarial)', () => {
  it('signs in on a second Connect after the user denied the first', async () => {
    const { server, provider } = await setup({ consent: 'page', decisions: ['deny', 'allow'] });
    const denied = await failureOf(server.authorize());
    expect(denied.code).toBe('needs_auth');
    expect(denied.details).toMatchObject({ reason: 'denied' });

    // The user changes their mind and clicks Connect again.
    expect(await server.authorize()).toBe('authorized');
    expect(server.getSnapshot().status).toBe('connected');
    expect((await provider.accountState()).signedIn).toBe(true);
  });

  // Bug in McpServer/McpConnection (not fixed here): the pending authorization URL outlives the
  // one-use state it carries, so every later Connect replays a consumed state.
  it('signs in on a second Connect after the code exchange failed once', async () => {
    const { server, control } = await setup({ consent: 'auto', timeoutMs: 2_000 });
    control.failNextCodeExchange = true;
    const failed = await failureOf(server.authorize());
    expect(failed.code).not.toBe('aborted');

    expect(await server.authorize()).toBe('authorized');
    expect(server.getSnapshot().status).toBe('connected');
  });

  it('keeps waiting when a forged callback with another state reaches the loopback listener', async () => {
    const { protectedUrl } = await start({ consent: 'auto' });
    const log: BrowserLog = { callbacks: [] };
    const realBrowser = browser(log);
    const forgedPages: number[] = [];
    const provider: NodeOAuthProvider = await nodeOAuthProvider({
      serverUrl: protectedUrl,
      timeoutMs: 10_000,
      openBrowser: async (url) => {
        // Any local process or web page can hit the listener first with a made-up answer.
        const forged = await fetch(`${provider.redirectUrl}?state=forged&code=attacker-code`);
        forgedPages.push(forged.status);
        await forged.text();
        await realBrowser(url);
      },
    });
    cleanups.push(() => provider.close());
    const server = mcpServer({ url: protectedUrl, name: 'protected', authProvider: provider });
    cleanups.push(() => server.close());

    expect(await server.authorize()).toBe('authorized');
    expect(forgedPages).toEqual([400]);
    expect((await provider.accountState()).signedIn).toBe(true);
  });

  it('does not bring tokens back when the provider signs out while a refresh is on the wire', async () => {
    const { server, provider, control } = await setup({ consent: 'auto', accessTokenTtlMs: 1_000 });
    expect(await server.authorize()).toBe('authorized');
    await sleep(1_200); // the access token expired: the next request gets 401 and refreshes

    let release!: () => void;
    control.refreshGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const refreshSent = new Promise<void>((resolve) => {
      control.onRefreshSent = resolve;
    });
    const listing = server.listTools().then(
      () => 'listed',
      (error: unknown) => (isSwitchboardError(error) ? error.code : 'failed'),
    );
    await refreshSent;
    // Another tab, or the app's "Sign out" of the provider, lands now.
    await provider.signOut();
    release();
    await listing;
    await sleep(50);

    expect(await provider.tokens()).toBeUndefined();
    expect((await provider.accountState()).signedIn).toBe(false);
  });

  it('does not bring tokens back when McpServer.signOut runs while a refresh is on the wire', async () => {
    const { server, provider, control } = await setup({ consent: 'auto', accessTokenTtlMs: 1_000 });
    expect(await server.authorize()).toBe('authorized');
    await sleep(1_200);

    let release!: () => void;
    control.refreshGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const refreshSent = new Promise<void>((resolve) => {
      control.onRefreshSent = resolve;
    });
    const listing = server.listTools().catch(() => undefined);
    await refreshSent;
    const signingOut = server.signOut();
    await Promise.race([signingOut, sleep(300)]);
    release();
    await signingOut;
    await listing;
    await sleep(50);

    expect(await provider.tokens()).toBeUndefined();
    expect((await provider.accountState()).signedIn).toBe(false);
    expect(server.getSnapshot().account?.signedIn).toBe(false);
  });

  it('puts no code, verifier or token in errors, snapshots, inspect output or console output', async () => {
    const logged: unknown[][] = [];
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args);
      });
    }
    const { server, provider, log, secrets } = await setup({ consent: 'auto' });
    const snapshots: unknown[] = [];
    server.subscribe(() => snapshots.push(server.getSnapshot()));

    const before = await failureOf(server.listTools());
    expect(before.code).toBe('needs_auth');
    expect(await server.authorize()).toBe('authorized');
    const tools = await server.listTools();
    expect(tools.length).toBeGreaterThan(0);

    // The same callback again (a replayed code): refused, and the failure carries no secret.
    const callback = log.callbacks[0];
    if (callback === undefined) throw new Error('No callback seen.');
    const code = callback.searchParams.get('code');
    if (code !== null) secrets.values.add(code);
    const replay = await failureOf(server.finishAuthorization(callback.searchParams));

    const stored = await provider.tokens();
    for (const value of [stored?.access_token, stored?.refresh_token]) {
      if (value !== undefined) secrets.values.add(value);
    }
    expect(secrets.values.size).toBeGreaterThanOrEqual(4); // code, verifier, access, refresh

    const haystack = [
      inspect(before, { depth: Infinity }),
      inspect(replay, { depth: Infinity }),
      JSON.stringify(before.details ?? {}),
      JSON.stringify(replay.details ?? {}),
      inspect(snapshots, { depth: Infinity }),
      JSON.stringify(server.getSnapshot()),
      inspect(server, { depth: Infinity }),
      JSON.stringify(server),
      inspect(provider, { depth: Infinity }),
      JSON.stringify(provider),
      String(provider),
      inspect(logged, { depth: Infinity }),
    ].join('\n');
    for (const secret of secrets.values) expect(haystack).not.toContain(secret);
  });
});
