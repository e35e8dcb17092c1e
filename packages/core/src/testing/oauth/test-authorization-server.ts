import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import { createAuthorizationServerApp } from './authorization-server-app.ts';
import type { AuthorizationServerRequest } from './authorization-server-log.ts';
import { TestOAuthProvider } from './test-oauth-provider.ts';
import { TokenStore } from './token-store.ts';
import type { VerifiedAccessToken } from './token-store.ts';

export type { AuthorizationServerRequest, VerifiedAccessToken };

/**
 * A client the server knows without dynamic registration. Field names are those of RFC 7591
 * client metadata.
 */
export interface PreRegisteredClient {
  client_id: string;
  /**
   * Makes it a confidential client that authenticates with `client_secret_post`. Without it the
   * client is public (`token_endpoint_auth_method: "none"`).
   */
  client_secret?: string;
  /** Allowed redirect URIs; loopback ones match on any port (RFC 8252 §7.3). */
  redirect_uris: string[];
  /** Shown on the consent page (the client id is shown otherwise). */
  client_name?: string;
}

/** Options of {@link startTestAuthorizationServer}. */
export interface TestAuthorizationServerOptions {
  /** TCP port on 127.0.0.1. Default 0: an ephemeral port chosen by the system. */
  port?: number;
  /** Aborting closes the server (as `close()` does); already aborted → the start rejects. */
  signal?: AbortSignal;
  /**
   * How `/authorize` asks the user:
   * - `page` (default): an HTML consent page ("Sign in to Switchboard demo") whose Allow / Deny
   *   buttons POST to `/consent`, which redirects back to the client;
   * - `auto`: approves at once with a 302 to the redirect URI (for Node tests without a browser).
   */
  consent?: 'page' | 'auto';
  /** Advertised `scopes_supported`. Default `['mcp:tools', 'mcp:admin']`. */
  scopesSupported?: string[];
  /** Lifetime of access tokens, in ms. Default 3_600_000 (one hour). */
  accessTokenTtlMs?: number;
  /**
   * Replace the refresh token on every refresh (OAuth 2.1 §4.3.1 for public clients). Default
   * true. When true, presenting a replaced refresh token again is `invalid_grant` and revokes the
   * whole grant (RFC 9700 §4.14.2 reuse detection).
   */
  rotateRefreshTokens?: boolean;
  /** Clients registered before the start. Dynamic registration (`/register`) stays enabled. */
  preRegisteredClients?: PreRegisteredClient[];
}

/** A running test authorization server (one `node:http` server on 127.0.0.1). */
export interface TestAuthorizationServer {
  /** The issuer and base URL, without a trailing slash: `http://127.0.0.1:PORT`. */
  url: string;
  /**
   * What the server knows of an access token: its client, scopes, expiry (seconds since the
   * epoch) and RFC 8707 resource. Undefined when the token is unknown, expired or revoked.
   */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | undefined>;
  /** Forgets every access and refresh token at once (clients and pending codes stay). */
  revokeAllTokens(): void;
  /**
   * Makes every issued access token expired at once (with `clientId`, only that client's), as
   * if its lifetime had run out: the protected resource answers it 401 `invalid_token`, so the
   * client must refresh. Refresh tokens stay valid. Returns how many tokens it expired.
   */
  expireAccessTokens(options?: { clientId?: string }): number;
  /** Every request received, oldest first (a live array, free of token values). */
  requests: AuthorizationServerRequest[];
  /**
   * Number of `POST /token` requests with this `grant_type` (e.g. `refresh_token`), failed ones
   * included; with `clientId`, only those whose body named that client.
   */
  tokenRequestCount(
    grantType: 'authorization_code' | 'refresh_token' | (string & {}),
    options?: { clientId?: string },
  ): number;
  /**
   * Stops listening and destroys open sockets. Resolves once closed; calling it again returns
   * the same promise.
   */
  close(): Promise<void>;
}

const DEFAULT_SCOPES = ['mcp:tools', 'mcp:admin'];
const DEFAULT_ACCESS_TOKEN_TTL_MS = 3_600_000;

function validateOptions(options: TestAuthorizationServerOptions): void {
  const { port = 0, accessTokenTtlMs = DEFAULT_ACCESS_TOKEN_TTL_MS } = options;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new SwitchboardError('invalid_input', `port must be 0-65535 (got ${port}).`);
  }
  if (!Number.isSafeInteger(accessTokenTtlMs) || accessTokenTtlMs < 1) {
    throw new SwitchboardError(
      'invalid_input',
      `accessTokenTtlMs must be a positive integer (got ${accessTokenTtlMs}).`,
    );
  }
  for (const scope of options.scopesSupported ?? []) {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
      throw new SwitchboardError('invalid_input', `Invalid scope token: ${JSON.stringify(scope)}.`);
    }
  }
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Starts a real OAuth 2.1 authorization server on 127.0.0.1 for tests and the playground, built
 * on the MCP SDK v1 framework (`mcpAuthRouter`, express 5) with an in-memory provider.
 *
 * Endpoints (all under {@link TestAuthorizationServer.url}):
 * - `GET /.well-known/oauth-authorization-server` (RFC 8414): `code` flow only, PKCE `S256`,
 *   `authorization_response_iss_parameter_supported: true`, auth methods `none` and
 *   `client_secret_post`, `scopes_supported`.
 * - `GET|POST /authorize`: the consent page, or an immediate redirect with `consent: 'auto'`.
 *   Every authorization response carries `iss` (RFC 9207) and `state`; success adds `code`, the
 *   Deny button `error=access_denied`. An unknown scope is `invalid_scope`; no scope at all grants
 *   the first of `scopesSupported`. `offline_access` is accepted but not needed.
 * - `POST /consent`: the consent form's target (`request_id`, `username`, `decision`).
 * - `POST /token`: `authorization_code` (PKCE S256 verified, code single-use, redirect URI and
 *   client checked) and `refresh_token`. A refresh token is ALWAYS issued with every access
 *   token, whether or not `offline_access` was requested. Tokens are opaque random strings bound
 *   to the RFC 8707 `resource` of the authorization (or token) request.
 * - `POST /register` (RFC 7591 dynamic registration) and `POST /revoke` (RFC 7009).
 *
 * No rate limits (the SDK's are off: tests make many requests). The metadata, token,
 * registration and revocation endpoints send `Access-Control-Allow-Origin: *`. The SDK accepts an
 * `http:` issuer because the host is 127.0.0.1, so no insecure-issuer flag is needed.
 *
 * @param options Port (default 0), consent mode (default `page`), scopes, token lifetime,
 *   rotation, pre-registered clients, signal.
 * @returns The running server; the caller must `close()` it.
 * @throws SwitchboardError `invalid_input` for a bad port, TTL or scope, `aborted` when `signal`
 *   is already aborted; the listen error (e.g. `EADDRINUSE`) when the port is taken.
 */
export async function startTestAuthorizationServer(
  options: TestAuthorizationServerOptions = {},
): Promise<TestAuthorizationServer> {
  validateOptions(options);
  const { port = 0, signal } = options;
  if (isAborted(signal)) {
    throw new SwitchboardError('aborted', 'The authorization server start was aborted.', {
      cause: signal?.reason,
    });
  }
  const scopesSupported = [...(options.scopesSupported ?? DEFAULT_SCOPES)];
  const tokens = new TokenStore({
    accessTokenTtlMs: options.accessTokenTtlMs ?? DEFAULT_ACCESS_TOKEN_TTL_MS,
    rotateRefreshTokens: options.rotateRefreshTokens ?? true,
  });
  const provider = new TestOAuthProvider({
    consent: options.consent ?? 'page',
    scopesSupported,
    tokens,
  });
  for (const client of options.preRegisteredClients ?? []) {
    provider.addClient({
      ...client,
      token_endpoint_auth_method:
        client.client_secret === undefined ? 'none' : 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
  }
  const requests: AuthorizationServerRequest[] = [];

  // The issuer needs the port, so the express app is attached once the server listens: in the
  // same synchronous run that follows `listen`, before any request can be read.
  const sockets = new Set<Socket>();
  const httpServer = createServer();
  httpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address();
  if (address === null || typeof address === 'string') {
    httpServer.close();
    throw new SwitchboardError('invalid_input', 'The authorization server has no TCP address.');
  }
  const issuer = `http://127.0.0.1:${address.port}`;

  const app = createAuthorizationServerApp({ provider, issuer, scopesSupported, requests });
  httpServer.on('request', app);

  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    closed ??= new Promise<void>((resolve) => {
      httpServer.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      httpServer.closeAllConnections();
    });
    return closed;
  }
  signal?.addEventListener('abort', () => void close(), { once: true });
  // The signal may have fired while the server was starting to listen.
  if (isAborted(signal)) void close();

  return {
    url: issuer,
    async verifyAccessToken(token) {
      return tokens.verify(token);
    },
    revokeAllTokens() {
      tokens.revokeAll();
    },
    expireAccessTokens(expireOptions = {}) {
      return tokens.expireAccessTokens(expireOptions.clientId);
    },
    requests,
    tokenRequestCount(grantType, countOptions = {}) {
      const { clientId } = countOptions;
      return requests.filter(
        (entry) =>
          entry.method === 'POST' &&
          entry.path === '/token' &&
          entry.grantType === grantType &&
          (clientId === undefined || entry.clientId === clientId),
      ).length;
    },
    close,
  };
}
