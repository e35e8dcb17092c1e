import type { StoredOAuthTokens } from '@modelcontextprotocol/client';
import type {
  OAuthIssuerCredentials,
  OAuthServerCredentials,
  SavedOAuthTokens,
} from './oauth-stores.ts';
import type { RefreshLock } from './refresh-lock.ts';

/** What {@link coordinateTokenRequests} needs from its provider. */
export interface TokenRequestCoordination {
  /** Serializes the refreshes (browser: Web Locks; otherwise in-process). */
  lock: RefreshLock;
  /** The lock name: one per MCP server. */
  lockName: string;
  /** Reads the server's stored credentials. */
  readCredentials: () => Promise<OAuthServerCredentials | undefined>;
  /**
   * Stores tokens from `issuer` as the provider's `saveTokens` does (and notifies), but only
   * while that issuer's stored refresh token is still `replacing` (the one the refresh spent):
   * resolves `false`, storing nothing, when it is gone (signed out meanwhile) or was replaced.
   */
  saveTokens: (
    issuer: string,
    tokens: StoredOAuthTokens,
    replacing: string,
  ) => Promise<boolean | void>;
  /**
   * Told the access token of every successful token answer this coordinator hands back (a
   * refresh it stored, or a synthetic answer from stored tokens): those tokens are stored
   * already, so the SDK's own `saveTokens` of them is redundant — and must not store them again
   * after a sign-out that landed in between.
   */
  answered?: (accessToken: string) => void;
  /** The clock, in ms since the epoch. */
  now: () => number;
}

/**
 * Tokens saved less than this long ago, in ms, answer a refresh of themselves: concurrent
 * requests sent with the previous access token get their 401s within about one round trip.
 */
const JUST_REFRESHED_MS = 2_000;

/** Stored tokens with less than this left, in ms, are refreshed rather than handed out. */
const FRESHNESS_MARGIN_MS = 10_000;

/**
 * Wraps `fetch` so that refresh-token requests (`POST` with a form body whose `grant_type` is
 * `refresh_token`, RFC 6749 §6) for one MCP server run one at a time under `coordination.lock`,
 * and inside the lock:
 *
 * - the request's `refresh_token` is the stored one, saved moments ago (under
 *   {@link JUST_REFRESHED_MS}) with a fresh access token: the answer is made from the stored
 *   tokens (the 401 behind it came from a request sent before they were saved);
 * - the request's `refresh_token` is the stored one otherwise: the request goes out, and a successful
 *   token response is stored (the old refresh token carried over when none came back) before
 *   the lock is released, so the next refresh sees the rotated tokens — unless the refresh token
 *   it spent is no longer stored by then (a sign-out landed while it was on the wire): then the
 *   answer is dropped and replaced by a synthetic `400` `invalid_grant`;
 * - it is not (another request or tab rotated it) and the stored access token is fresh: the
 *   answer is a synthetic `200` token response made from the stored tokens, and the old refresh
 *   token is not spent;
 * - it is not and the stored access token has expired: the request goes out with the stored
 *   refresh token instead of the old one;
 * - no usable tokens are stored (signed out, invalidated): the answer is a synthetic `400`
 *   `invalid_grant`, so the SDK starts a new authorization instead of signing back in;
 * - in the last three cases, with tokens of several authorization servers stored, only those of
 *   the server the request goes to (its issuer's origin, or its registered `client_id`) are
 *   used; when that is not one entry, the request goes out unchanged — one server's tokens are
 *   never handed out as, or sent to, another's.
 *
 * Every other request passes through untouched.
 */
export function coordinateTokenRequests(
  fetch: typeof globalThis.fetch,
  coordination: TokenRequestCoordination,
): typeof globalThis.fetch {
  return async (input, init) => {
    const parameters = await refreshRequestParameters(input, init);
    if (parameters === undefined) return await fetch(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    return await coordination.lock(
      coordination.lockName,
      async () => await refreshOnce(fetch, coordination, input, init, parameters),
      signal ?? undefined,
    );
  };
}

/** Runs under the lock: see {@link coordinateTokenRequests}. */
async function refreshOnce(
  fetch: typeof globalThis.fetch,
  coordination: TokenRequestCoordination,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  parameters: URLSearchParams,
): Promise<Response> {
  const requested = parameters.get('refresh_token') ?? '';
  const credentials = await coordination.readCredentials();
  const withTokens = (credentials?.issuers ?? []).filter((entry) => entry.tokens !== undefined);
  const current = withTokens.find((entry) => entry.tokens?.tokens.refresh_token === requested);
  if (current !== undefined) {
    const saved = current.tokens;
    const now = coordination.now();
    // A 401 to a request sent with the old access token can reach the SDK after the refresh it
    // needed already finished: the SDK then reads the new tokens and asks to refresh them
    // again. Tokens stored moments ago are the answer; spending their refresh token is not.
    if (saved !== undefined && now - saved.savedAt < JUST_REFRESHED_MS && isFresh(saved, now)) {
      return tokenResponse(saved, now, coordination);
    }
    return await sendAndStore(fetch, coordination, input, init, current.issuer, requested);
  }
  if (withTokens.length === 0) return invalidGrant();
  // Several authorization servers' tokens (the MCP server moved): only those of the server this
  // request goes to may answer it, or be sent to it; when that is not clear, it goes out as is.
  const candidates =
    withTokens.length === 1
      ? withTokens
      : withTokens.filter((entry) => isSameAuthorizationServer(entry, input, parameters));
  if (candidates.length !== 1 && withTokens.length > 1) return await fetch(input, init);
  const latest =
    candidates.find((entry) => entry.issuer === credentials?.latestIssuer) ??
    candidates.toSorted((a, b) => (b.tokens?.savedAt ?? 0) - (a.tokens?.savedAt ?? 0))[0];
  const saved = latest?.tokens;
  if (latest === undefined || saved === undefined) return invalidGrant();
  if (isFresh(saved, coordination.now())) {
    return tokenResponse(saved, coordination.now(), coordination);
  }
  const storedRefreshToken = saved.tokens.refresh_token;
  if (storedRefreshToken === undefined || !(init?.body instanceof URLSearchParams)) {
    return invalidGrant();
  }
  const substituted = new URLSearchParams(init.body);
  substituted.set('refresh_token', storedRefreshToken);
  return await sendAndStore(
    fetch,
    coordination,
    input,
    { ...init, body: substituted },
    latest.issuer,
    storedRefreshToken,
  );
}

/**
 * Whether `entry`'s authorization server is the one a token request to `input` targets: the
 * issuer's origin is the token endpoint's, or the entry's registered client is the request's
 * `client_id`.
 */
function isSameAuthorizationServer(
  entry: OAuthIssuerCredentials,
  input: RequestInfo | URL,
  parameters: URLSearchParams,
): boolean {
  const clientId = parameters.get('client_id');
  if (clientId !== null && entry.client?.client_id === clientId) return true;
  try {
    const target = new URL(input instanceof Request ? input.url : String(input));
    return new URL(entry.issuer).origin === target.origin;
  } catch {
    return false;
  }
}

/** Sends the refresh and stores a successful token response for `issuer` before returning. */
async function sendAndStore(
  fetch: typeof globalThis.fetch,
  coordination: TokenRequestCoordination,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  issuer: string,
  spentRefreshToken: string,
): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.ok) return response;
  const tokens = await readTokenResponse(response);
  if (tokens !== undefined) {
    const stored = await coordination.saveTokens(
      issuer,
      { ...tokens, refresh_token: tokens.refresh_token ?? spentRefreshToken, issuer },
      spentRefreshToken,
    );
    if (stored === false) {
      // Signed out (or replaced) while the refresh was on the wire: the new tokens are dropped,
      // and the SDK is told the grant is gone rather than handed tokens it would store again.
      await response.body?.cancel().catch(() => undefined);
      return invalidGrant();
    }
    coordination.answered?.(tokens.access_token);
  }
  return response;
}

/** The token fields of a successful token response (RFC 6749 §5.1), read from a clone. */
async function readTokenResponse(response: Response): Promise<StoredOAuthTokens | undefined> {
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const fields = body as Record<string, unknown>;
  if (typeof fields.access_token !== 'string' || typeof fields.token_type !== 'string') {
    return undefined;
  }
  const expiresIn = Number(fields.expires_in);
  return {
    access_token: fields.access_token,
    token_type: fields.token_type,
    ...(fields.expires_in !== undefined && Number.isFinite(expiresIn)
      ? { expires_in: expiresIn }
      : {}),
    ...(typeof fields.scope === 'string' ? { scope: fields.scope } : {}),
    ...(typeof fields.refresh_token === 'string' ? { refresh_token: fields.refresh_token } : {}),
    ...(typeof fields.id_token === 'string' ? { id_token: fields.id_token } : {}),
  };
}

/** The form parameters of a refresh-token request, or `undefined` for any other request. */
async function refreshRequestParameters(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<URLSearchParams | undefined> {
  const request = input instanceof Request ? input : undefined;
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  if (method !== 'POST') return undefined;
  let parameters: URLSearchParams | undefined;
  const body = init?.body;
  if (body instanceof URLSearchParams) {
    parameters = body;
  } else if (isForm(init?.headers ?? request?.headers)) {
    if (typeof body === 'string') parameters = new URLSearchParams(body);
    else if (body === undefined && request !== undefined) {
      parameters = new URLSearchParams(await request.clone().text());
    }
  }
  return parameters?.get('grant_type') === 'refresh_token' ? parameters : undefined;
}

function isForm(headers: HeadersInit | undefined): boolean {
  if (headers === undefined) return false;
  const type = new Headers(headers).get('content-type') ?? '';
  return type.toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/**
 * Whether stored tokens are worth answering with: their lifetime is unknown, or more than
 * {@link FRESHNESS_MARGIN_MS} (or half their lifetime, for short-lived tokens) is left.
 */
function isFresh(saved: SavedOAuthTokens, now: number): boolean {
  if (saved.expiresAt === undefined) return true;
  const margin = Math.min(FRESHNESS_MARGIN_MS, (saved.expiresAt - saved.savedAt) / 2);
  return saved.expiresAt - now > margin;
}

/** A synthetic token response (RFC 6749 §5.1) carrying the stored tokens. */
function tokenResponse(
  saved: SavedOAuthTokens,
  now: number,
  coordination: TokenRequestCoordination,
): Response {
  const { tokens, expiresAt } = saved;
  coordination.answered?.(tokens.access_token);
  const body = {
    access_token: tokens.access_token,
    token_type: tokens.token_type,
    ...(expiresAt === undefined
      ? {}
      : // Rounded up: rounding down would shorten the lifetime at every synthetic answer
        // (the SDK stores `now + expires_in`), until fresh tokens looked expired.
        { expires_in: Math.max(0, Math.ceil((expiresAt - now) / 1000)) }),
    ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
    ...(tokens.refresh_token === undefined ? {} : { refresh_token: tokens.refresh_token }),
    ...(tokens.id_token === undefined ? {} : { id_token: tokens.id_token }),
  };
  return jsonResponse(200, body);
}

/** A synthetic `invalid_grant` error response (RFC 6749 §5.2). */
function invalidGrant(): Response {
  return jsonResponse(400, {
    error: 'invalid_grant',
    error_description: 'The refresh token is no longer stored (signed out or replaced).',
  });
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
