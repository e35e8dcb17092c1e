import type { StoredOAuthTokens } from '@modelcontextprotocol/client';
import type { OAuthServerCredentials, SavedOAuthTokens } from './oauth-stores.ts';
import type { RefreshLock } from './refresh-lock.ts';

/** What {@link coordinateTokenRequests} needs from its provider. */
export interface TokenRequestCoordination {
  /** Serializes the refreshes (browser: Web Locks; otherwise in-process). */
  lock: RefreshLock;
  /** The lock name: one per MCP server. */
  lockName: string;
  /** Reads the server's stored credentials. */
  readCredentials: () => Promise<OAuthServerCredentials | undefined>;
  /** Stores tokens from `issuer` as the provider's `saveTokens` does (and notifies). */
  saveTokens: (issuer: string, tokens: StoredOAuthTokens) => Promise<void>;
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
 *   the lock is released, so the next refresh sees the rotated tokens;
 * - it is not (another request or tab rotated it) and the stored access token is fresh: the
 *   answer is a synthetic `200` token response made from the stored tokens, and the old refresh
 *   token is not spent;
 * - it is not and the stored access token has expired: the request goes out with the stored
 *   refresh token instead of the old one;
 * - no usable tokens are stored (signed out, invalidated): the answer is a synthetic `400`
 *   `invalid_grant`, so the SDK starts a new authorization instead of signing back in.
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
      return tokenResponse(saved, now);
    }
    return await sendAndStore(fetch, coordination, input, init, current.issuer, requested);
  }
  const latest =
    withTokens.find((entry) => entry.issuer === credentials?.latestIssuer) ??
    withTokens.toSorted((a, b) => (b.tokens?.savedAt ?? 0) - (a.tokens?.savedAt ?? 0))[0];
  const saved = latest?.tokens;
  if (latest === undefined || saved === undefined) return invalidGrant();
  if (isFresh(saved, coordination.now())) return tokenResponse(saved, coordination.now());
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
    await coordination.saveTokens(issuer, {
      ...tokens,
      refresh_token: tokens.refresh_token ?? spentRefreshToken,
      issuer,
    });
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
function tokenResponse(saved: SavedOAuthTokens, now: number): Response {
  const { tokens, expiresAt } = saved;
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
