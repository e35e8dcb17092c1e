import {
  OAUTH_CALLBACK_MESSAGE_TYPE,
  readPendingRedirect,
  writePendingRedirect,
  type OAuthCallbackMessage,
} from './oauth-redirect-channel.ts';
import type { WebStorage } from '../internal/dom-globals.ts';

/** Options of {@link completeOAuthRedirect}. */
export interface CompleteOAuthRedirectOptions {
  /**
   * Where the redirect fallback goes back to when the provider left no return address for the
   * answer's `state` (a relative URL is resolved against the callback page). Only same-origin
   * addresses are used; others become `'/'`. Default `'/'`.
   */
  returnTo?: string;
  /** The storage the browser provider uses. Default `globalThis.sessionStorage`. */
  sessionStorage?: WebStorage;
}

/** What {@link completeOAuthRedirect} did. */
export type CompleteOAuthRedirectOutcome =
  /** Posted the answer to the opener (the provider's popup) and closed this window. */
  | 'posted'
  /** Stored the answer for `takeRedirectCallback()` and went back (`location.replace`). */
  | 'redirected';

/**
 * The whole script of the app's OAuth callback page — the redirect URI registered for
 * {@link browserOAuthProvider}. It reads the authorization response from `location.search`
 * (`code`, `state`, `iss`, or `error`; RFC 6749 §4.1.2, RFC 9207) and:
 *
 * - in the provider's popup (`window.opener` is open and same-origin): posts
 *   `{ type: 'switchboard.oauth-callback', query }` to the opener with target origin
 *   `location.origin` — the provider accepts it only from the redirect URI's origin and its own
 *   popup — then closes the window;
 * - otherwise (the popup was blocked and the whole page went to the authorization server): stores
 *   the query in `sessionStorage` under the `state` it carries, and goes back with
 *   `location.replace` (so the URL with the code leaves the history) to the page the provider
 *   left from, else `options.returnTo`. There `takeRedirectCallback()` returns the answer.
 *
 * It does not check `state` or exchange the code: the provider does (one use), then
 * `McpServer.finishAuthorization` (the SDK checks `iss` and redeems the code with PKCE).
 *
 * A callback page, such as `oauth-callback.html` at the root of a Vite app (list it under
 * `build.rollupOptions.input` for a multi-page build):
 *
 * ```html
 * <!doctype html>
 * <html lang="en">
 *   <head>
 *     <meta charset="utf-8" />
 *     <meta name="referrer" content="no-referrer" />
 *     <title>Signing in…</title>
 *   </head>
 *   <body>
 *     <p>Finishing sign-in… You can close this window.</p>
 *     <script type="module">
 *       import { completeOAuthRedirect } from '@switchboard/core';
 *       completeOAuthRedirect();
 *     </script>
 *   </body>
 * </html>
 * ```
 *
 * Keep the page free of third-party resources: its URL carries the authorization code.
 */
export function completeOAuthRedirect(
  options: CompleteOAuthRedirectOptions = {},
): CompleteOAuthRedirectOutcome {
  const query = globalThis.location.search;
  const opener = sameOriginOpener();
  if (opener !== undefined) {
    const message: OAuthCallbackMessage = { type: OAUTH_CALLBACK_MESSAGE_TYPE, query };
    opener.postMessage(message, globalThis.location.origin);
    globalThis.window.close();
    return 'posted';
  }
  let returnTo = options.returnTo ?? '/';
  const state = new URLSearchParams(query).get('state');
  if (state !== null && state !== '') {
    try {
      const storage = options.sessionStorage ?? globalThis.sessionStorage;
      const pending = readPendingRedirect(storage, state);
      if (pending?.returnTo !== undefined) returnTo = pending.returnTo;
      writePendingRedirect(storage, state, { ...pending, query });
    } catch {
      // No storage: nothing can carry the answer back; the app will ask again.
    }
  }
  globalThis.location.replace(sameOriginUrl(returnTo));
  return 'redirected';
}

/** The opener window when it is open and on this origin, else `undefined`. */
function sameOriginOpener(): Window | undefined {
  try {
    const opener = globalThis.window.opener as Window | null | undefined;
    if (opener === null || opener === undefined || opener.closed) return undefined;
    // Reading a cross-origin opener's location throws: such an opener is not the app.
    return opener.location.origin === globalThis.location.origin ? opener : undefined;
  } catch {
    return undefined;
  }
}

/** `address` resolved against this page when it is on this origin, else this origin's `/`. */
function sameOriginUrl(address: string): string {
  try {
    const url = new URL(address, globalThis.location.href);
    if (url.origin === globalThis.location.origin) return url.href;
  } catch {
    // Not a URL.
  }
  return new URL('/', globalThis.location.href).href;
}
