/**
 * How the app's OAuth callback page (`completeOAuthRedirect`) hands the authorization response
 * to the browser provider: a `postMessage` to the opener (popup), or `sessionStorage` (full-page
 * redirect fallback).
 */

/** The `type` tag of the callback page's message to its opener. */
export const OAUTH_CALLBACK_MESSAGE_TYPE = 'switchboard.oauth-callback';

/** The callback page's message to its opener: the redirect URI's query string. */
export interface OAuthCallbackMessage {
  type: typeof OAUTH_CALLBACK_MESSAGE_TYPE;
  /** `location.search` of the callback page (with or without the leading `?`). */
  query: string;
}

/** True when `data` is an {@link OAuthCallbackMessage}. */
export function isOAuthCallbackMessage(data: unknown): data is OAuthCallbackMessage {
  const candidate = data as Partial<OAuthCallbackMessage> | null | undefined;
  return candidate?.type === OAUTH_CALLBACK_MESSAGE_TYPE && typeof candidate.query === 'string';
}

/**
 * A redirect-fallback authorization in `sessionStorage`, keyed by its `state`: the provider
 * writes `returnTo` before leaving the page, the callback page adds `query` and goes back.
 */
export interface PendingOAuthRedirect {
  /** The page to return to (same origin), `location.href` when the authorization started. */
  returnTo?: string;
  /** The authorization response's query string, once the callback page saw it. */
  query?: string;
}

const KEY_PREFIX = 'switchboard.oauth.redirect:';

/** The pending redirect of `state`, or `undefined` (also for a record that does not parse). */
export function readPendingRedirect(
  storage: Storage,
  state: string,
): PendingOAuthRedirect | undefined {
  const text = storage.getItem(KEY_PREFIX + state);
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as PendingOAuthRedirect | null;
    if (typeof value !== 'object' || value === null) return undefined;
    return {
      ...(typeof value.returnTo === 'string' ? { returnTo: value.returnTo } : {}),
      ...(typeof value.query === 'string' ? { query: value.query } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Writes (or, with `undefined`, removes) the pending redirect of `state`. */
export function writePendingRedirect(
  storage: Storage,
  state: string,
  value: PendingOAuthRedirect | undefined,
): void {
  if (value === undefined) storage.removeItem(KEY_PREFIX + state);
  else storage.setItem(KEY_PREFIX + state, JSON.stringify(value));
}
