import type { OAuthClientProvider } from '@modelcontextprotocol/client';

/**
 * What a UI may show about the signed-in account of one MCP server. Holds no secret: never a
 * token, code or client secret.
 */
export interface OAuthAccountState {
  /**
   * Whether tokens are stored for the server that can still be used: an access token that has
   * not expired (or whose lifetime is unknown), or a refresh token.
   */
  signedIn: boolean;
  /** The authorization server (`issuer`, RFC 8414) that issued the most recently saved tokens. */
  issuer?: string;
  /** The scope granted with those tokens (space-separated, RFC 6749 §3.3), when the server said. */
  scope?: string;
  /** When the access token expires, in ms since the epoch (from `expires_in` at save time). */
  expiresAt?: number;
}

/**
 * An `OAuthClientProvider` (the MCP SDK's interface: the SDK does discovery, registration, PKCE,
 * `resource`, the `iss` check, refresh and step-up; MCP authorization, revision 2025-11-25) that
 * can also take the user to the authorization server and back, sign out, report the account
 * state, and coordinate token refreshes.
 *
 * The SDK's `redirectToAuthorization(url)` only records: navigating needs a user gesture, so the
 * app calls {@link InteractiveOAuthProvider.authorize} from a click handler with the URL that the
 * `needs_auth` failure carries (`details.authorizationUrl`), then hands the answer to
 * `McpServer.finishAuthorization(query)`.
 *
 * Implementations: `browserOAuthProvider` (`@switchboard/core`) and `nodeOAuthProvider`
 * (`@switchboard/core/node`). Neither puts a token, code or verifier in a log, an error message,
 * `toString()` or `JSON.stringify(provider)`.
 */
export interface InteractiveOAuthProvider extends OAuthClientProvider {
  /**
   * Sends the user to `authorizationUrl` and resolves with the authorization response's query
   * (`code`, `state`, `iss`; RFC 6749 §4.1.2, RFC 9207) once `state` was checked against the one
   * this provider issued (one use). Browser: opens a popup — call it from a click handler (user
   * activation); when the popup is blocked, falls back to a full-page redirect and resolves
   * `undefined` (the page navigates away; after coming back, `takeRedirectCallback()` returns the
   * answer). Node: opens the system browser through the `openBrowser` option and waits on the
   * loopback listener (RFC 8252 §7.3).
   *
   * @throws SwitchboardError 'needs_auth' when the user denied (OAuth `error` in the response,
   *   message carries `error` and `error_description`, never the code; the state stays issued so
   *   the same URL can be opened again), closed the popup, the state does not match (browser;
   *   Node ignores such answers on its loopback listener and keeps waiting), or it timed out (`details.reason`: `'denied'`, `'closed'`,
   *   `'state_mismatch'`, `'timeout'`, `'invalid_response'`, `'open_failed'`); 'aborted' on
   *   signal; 'invalid_input' when `authorizationUrl` is not http(s).
   */
  authorize(
    authorizationUrl: URL,
    options?: { signal?: AbortSignal },
  ): Promise<URLSearchParams | undefined>;
  /**
   * After a redirect-fallback round trip: the checked callback query for this provider's server,
   * once; otherwise `undefined` (always `undefined` in Node).
   *
   * @throws SwitchboardError 'needs_auth' when the stored answer carries an OAuth `error`
   *   (`details.reason` `'denied'`) or no code.
   */
  takeRedirectCallback(): Promise<URLSearchParams | undefined>;
  /**
   * Sign out: forget this server's tokens (all issuers), code verifier, state and discovery
   * state; keep client registrations unless `{ forgetClient: true }`. Subscribers are notified.
   * Does not revoke the tokens at the authorization server (RFC 7009 is not used).
   */
  signOut(options?: { forgetClient?: boolean }): Promise<void>;
  /** Non-secret account state for the UI (see {@link OAuthAccountState}). */
  accountState(): Promise<OAuthAccountState>;
  /**
   * Subscribe to account state changes (tokens saved / signed out / invalidated), including from
   * other tabs (BroadcastChannel) in the browser. The listener takes no argument: read
   * {@link InteractiveOAuthProvider.accountState} again. Returns unsubscribe (idempotent).
   */
  subscribe(listener: () => void): () => void;
  /**
   * Wraps the fetch the SDK uses for authorization-server requests (pass the result as the
   * transport's `fetch`; other requests go through unchanged). Token requests with
   * `grant_type=refresh_token` (RFC 6749 §6) are serialized per server (browser: Web Locks
   * `navigator.locks` so tabs share it, with an in-process fallback; Node: in-process), and a
   * refresh whose `refresh_token` is no longer the stored one (another request or tab already
   * rotated it) is answered from the stored, fresher tokens (a synthetic 200 token response)
   * instead of spending the old refresh token — so N concurrent 401s cause exactly one refresh.
   * A refresh after sign-out is answered with a synthetic 400 `invalid_grant`, so the SDK asks
   * for a new authorization instead of signing the user back in.
   */
  coordinateTokenRequests(fetch: typeof globalThis.fetch): typeof globalThis.fetch;
}
