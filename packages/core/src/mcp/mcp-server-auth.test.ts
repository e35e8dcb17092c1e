import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSwitchboardError, type SwitchboardError } from '../errors/switchboard-error.ts';
import { startEverythingServer, type EverythingServer } from '@switchboard/fixtures';
import { mcpServer } from './mcp-server.ts';
import type { SchemaCache, SchemaCacheEntry } from './schema-cache.ts';

const AUTHORIZATION_SERVER = 'http://as.localhost';
const ACCESS_TOKEN = 'secret-access-token-4f1d';
const CODE = 'the-authorization-code';

/**
 * The everything server behind an OAuth gate, all in a fetch: the MCP endpoint answers 401
 * (with `resource_metadata`) unless the request carries the access token; `as.localhost` serves the
 * protected resource metadata, the authorization server metadata and the token endpoint.
 */
function oauthGate(mcpUrl: string, options: { codeChallengeMethods?: string[] | null } = {}) {
  const methods =
    options.codeChallengeMethods === undefined ? ['S256'] : options.codeChallengeMethods;
  const requests: { url: string; headers: Headers }[] = [];
  let revoked = false;
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    requests.push({ url: url.href, headers });
    if (url.origin === AUTHORIZATION_SERVER) {
      if (url.pathname === '/prm') {
        return Response.json({ resource: mcpUrl, authorization_servers: [AUTHORIZATION_SERVER] });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return Response.json({
          issuer: AUTHORIZATION_SERVER,
          authorization_endpoint: `${AUTHORIZATION_SERVER}/authorize`,
          token_endpoint: `${AUTHORIZATION_SERVER}/token`,
          response_types_supported: ['code'],
          ...(methods === null ? {} : { code_challenge_methods_supported: methods }),
          token_endpoint_auth_methods_supported: ['none'],
        });
      }
      if (url.pathname === '/token') {
        const body = new URLSearchParams(String(init?.body));
        if (body.get('code') !== CODE)
          return Response.json({ error: 'invalid_grant' }, { status: 400 });
        return Response.json({
          access_token: ACCESS_TOKEN,
          token_type: 'Bearer',
          expires_in: 3600,
        });
      }
      return new Response('not found', { status: 404 });
    }
    if (revoked || headers.get('authorization') !== `Bearer ${ACCESS_TOKEN}`) {
      return new Response(JSON.stringify({ error: 'invalid_token' }), {
        status: 401,
        headers: {
          'content-type': 'application/json',
          'www-authenticate': `Bearer resource_metadata="${AUTHORIZATION_SERVER}/prm"`,
        },
      });
    }
    return await fetch(input, init);
  };
  return {
    fetchImpl,
    requests,
    revoke: () => {
      revoked = true;
    },
  };
}

/** An in-memory provider for a public client that is already registered. */
function memoryProvider() {
  const state: {
    tokens?: StoredOAuthTokens;
    verifier?: string;
    discovery?: OAuthDiscoveryState;
    redirectedTo: URL[];
  } = { redirectedTo: [] };
  const provider: OAuthClientProvider = {
    redirectUrl: 'http://127.0.0.1:5173/callback',
    clientMetadata: { client_name: 'test', redirect_uris: ['http://127.0.0.1:5173/callback'] },
    clientInformation: () => ({ client_id: 'test-client' }),
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      state.redirectedTo.push(url);
    },
    saveCodeVerifier: (verifier) => {
      state.verifier = verifier;
    },
    codeVerifier: () => state.verifier ?? '',
    discoveryState: () => state.discovery,
    saveDiscoveryState: (discovery) => {
      state.discovery = discovery;
    },
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') delete state.tokens;
    },
  };
  return { provider, state };
}

/** A schema cache that keeps what it was given, to look for secrets in keys and values. */
function recordingCache(): SchemaCache & { entries: Map<string, SchemaCacheEntry> } {
  const entries = new Map<string, SchemaCacheEntry>();
  return {
    entries,
    get: async (key) => entries.get(key),
    set: async (key, entry) => {
      entries.set(key, entry);
    },
    delete: async (key) => {
      entries.delete(key);
    },
    clear: async () => {
      entries.clear();
    },
  };
}

function describeFully(error: SwitchboardError): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    parts.push(current.message, String(current.stack));
  }
  return `${parts.join('\n')}\n${JSON.stringify(error.details)}`;
}

describe('mcpServer with an OAuth authProvider', () => {
  let everything: EverythingServer;
  beforeAll(async () => {
    everything = await startEverythingServer();
  });
  afterAll(async () => {
    await everything.close();
  });

  it('reports needs_auth with the authorization URL, then finishes and connects', async () => {
    const gate = oauthGate(everything.url);
    const { provider, state } = memoryProvider();
    const cache = recordingCache();
    const server = mcpServer({
      url: everything.url,
      name: 'guarded',
      fetch: gate.fetchImpl,
      authProvider: provider,
      headers: { 'x-caller': 'caller-secret' },
      schemaCache: cache,
    });
    try {
      const failure = await server.listTools().catch((error: unknown) => error);
      expect(isSwitchboardError(failure, 'needs_auth')).toBe(true);
      const authorizationUrl = (failure as SwitchboardError).details?.authorizationUrl;
      expect(typeof authorizationUrl).toBe('string');
      expect(String(authorizationUrl)).toBe(state.redirectedTo.at(-1)?.href);
      const url = new URL(String(authorizationUrl));
      expect(url.origin + url.pathname).toBe(`${AUTHORIZATION_SERVER}/authorize`);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('resource')).toBe(everything.url);
      expect(server.getSnapshot().status).toBe('needs-auth');
      expect(server.getSnapshot().error?.code).toBe('needs_auth');

      await server.finishAuthorization(CODE);
      expect(server.getSnapshot().status).toBe('connected');
      const tools = await server.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');

      // OAuth requests go out without the caller's headers; MCP requests carry both.
      const toAuthorizationServer = gate.requests.filter((request) =>
        request.url.startsWith(AUTHORIZATION_SERVER),
      );
      expect(toAuthorizationServer.length).toBeGreaterThan(0);
      for (const request of toAuthorizationServer) {
        expect(request.headers.get('x-caller')).toBeNull();
      }
      const authorized = gate.requests.filter(
        (request) => request.headers.get('authorization') === `Bearer ${ACCESS_TOKEN}`,
      );
      expect(authorized.length).toBeGreaterThan(0);
      expect(
        authorized.every((request) => request.headers.get('x-caller') === 'caller-secret'),
      ).toBe(true);

      // The schema cache never sees the token.
      expect(cache.entries.size).toBe(1);
      expect(JSON.stringify([...cache.entries])).not.toContain(ACCESS_TOKEN);
    } finally {
      await server.close();
    }
  });

  it('keeps the token out of the error when the server stops accepting it', async () => {
    const gate = oauthGate(everything.url);
    const { provider } = memoryProvider();
    const server = mcpServer({
      url: everything.url,
      fetch: gate.fetchImpl,
      authProvider: provider,
    });
    try {
      await server.listTools().catch(() => undefined);
      await server.finishAuthorization(CODE);
      gate.revoke();
      const failure = await server
        .callTool('echo', { message: 'hi' })
        .catch((error: unknown) => error);
      expect(isSwitchboardError(failure, 'needs_auth')).toBe(true);
      expect(describeFully(failure as SwitchboardError)).not.toContain(ACCESS_TOKEN);
    } finally {
      await server.close();
    }
  });

  it('finishes an authorization in a new McpServer (a reload after the redirect flow)', async () => {
    const gate = oauthGate(everything.url);
    const { provider } = memoryProvider();
    const before = mcpServer({
      url: everything.url,
      fetch: gate.fetchImpl,
      authProvider: provider,
    });
    const failure = await before.listTools().catch((error: unknown) => error);
    expect(isSwitchboardError(failure, 'needs_auth')).toBe(true);
    await before.close();
    // The page came back from the authorization server: a new server object, the same storage.
    const after = mcpServer({ url: everything.url, fetch: gate.fetchImpl, authProvider: provider });
    try {
      await after.finishAuthorization(CODE);
      expect((await after.listTools()).length).toBeGreaterThan(0);
      expect(after.getSnapshot().status).toBe('connected');
    } finally {
      await after.close();
    }
  });

  it.each([
    ['absent', null],
    ['without S256', ['plain']],
  ] as const)(
    'refuses an authorization server whose PKCE support is %s, before any authorization request',
    async (_label, codeChallengeMethods) => {
      const gate = oauthGate(everything.url, {
        codeChallengeMethods: codeChallengeMethods === null ? null : [...codeChallengeMethods],
      });
      const { provider, state } = memoryProvider();
      const server = mcpServer({
        url: everything.url,
        fetch: gate.fetchImpl,
        authProvider: provider,
      });
      try {
        const failure = await server.listTools().catch((error: unknown) => error);
        expect(isSwitchboardError(failure, 'invalid_response')).toBe(true);
        expect((failure as SwitchboardError).message).toContain('PKCE with S256');
        expect(state.redirectedTo).toEqual([]);
        expect(state.verifier).toBeUndefined();
      } finally {
        await server.close();
      }
    },
  );

  it('rejects finishAuthorization without an authProvider', async () => {
    const server = mcpServer({ url: everything.url });
    try {
      const failure = await server.finishAuthorization(CODE).catch((error: unknown) => error);
      expect(isSwitchboardError(failure, 'invalid_input')).toBe(true);
    } finally {
      await server.close();
    }
  });
});
