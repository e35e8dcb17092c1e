import { SwitchboardError } from '../errors/switchboard-error.ts';
import {
  authorizationFailure,
  authorizationRefusal,
  checkAuthorizationCallback,
} from './authorization-callback.ts';
import {
  DEFAULT_OAUTH_DATABASE_NAME,
  IndexedDbOAuthCredentialStore,
} from './indexeddb-oauth-credential-store.ts';
import type { InteractiveOAuthProvider } from './interactive-oauth-provider.ts';
import { broadcastChangeChannel } from './oauth-change-channel.ts';
import type { OAuthClientSettings } from './oauth-client-settings.ts';
import { readPendingRedirect, writePendingRedirect } from './oauth-redirect-channel.ts';
import { waitForPopupCallback } from './popup-callback.ts';
import { defaultRefreshLock } from './refresh-lock.ts';
import { SessionStorageOAuthFlowStore } from './session-storage-oauth-flow-store.ts';
import { StoredOAuthProvider } from './stored-oauth-provider.ts';
import type { IndexedDbFactory, WebStorage } from '../internal/dom-globals.ts';

/** Options of {@link browserOAuthProvider}. */
export interface BrowserOAuthProviderOptions extends OAuthClientSettings {
  /**
   * The IndexedDB database for tokens and client registrations (shared by every server's
   * provider; one record per server URL). Default `'switchboard-oauth'`.
   */
  databaseName?: string;
  /** The IndexedDB factory. Default `globalThis.indexedDB` (tests: `fake-indexeddb`). */
  indexedDB?: IndexedDbFactory;
  /**
   * Where the code verifier, state and discovery state wait for the callback, and where the
   * redirect fallback's return address and answer go. Default `globalThis.sessionStorage`.
   */
  sessionStorage?: WebStorage;
  /** The popup's window name (a second `authorize` reuses the window). Default `'switchboard-oauth'`. */
  popupName?: string;
  /** The popup's `window.open` features. Default `'popup,width=520,height=720'`. */
  popupFeatures?: string;
  /** How long `authorize` waits for the popup's answer, in ms. Default 600 000 (10 min). */
  timeoutMs?: number;
  /** How often `authorize` checks whether the popup was closed, in ms. Default 500. */
  popupPollIntervalMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_POPUP_NAME = 'switchboard-oauth';
const DEFAULT_POPUP_FEATURES = 'popup,width=520,height=720';
const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_POLL_INTERVAL_MS = 500;

/**
 * The {@link InteractiveOAuthProvider} for the browser (MCP authorization 2025-11-25; public
 * client with PKCE, RFC 7636).
 *
 * - `redirectUrl`: the app's callback page, on the app's own origin (the popup hands the answer
 *   to its same-origin opener), registered with the authorization server.
 * - Tokens and client registrations: IndexedDB (`databaseName`), one record per MCP server URL
 *   with entries per authorization server `issuer`, shared by the origin's tabs.
 * - Code verifier, `state` and discovery state: `sessionStorage` (they survive a full-page
 *   redirect; other tabs never see them).
 * - `authorize(url)`: call it from a click handler. It opens a popup at once (before any
 *   `await`, within the click's user activation) and waits for the app's callback page, which
 *   calls {@link completeOAuthRedirect}, to post the answer: only a message from the redirect
 *   URI's origin, from that popup, with the callback type tag counts. It then checks `state`
 *   (one use) and resolves with the query for `McpServer.finishAuthorization`. When the popup is
 *   blocked it saves the current page as the return address, navigates the page to the
 *   authorization server (`location.assign`) and resolves `undefined`; after the round trip
 *   `takeRedirectCallback()` returns the answer once.
 * - Refreshes: `coordinateTokenRequests` serializes them per server with Web Locks
 *   (`navigator.locks`, across tabs) or, without them, within the page.
 * - `subscribe`: notified of changes in this page and, through `BroadcastChannel`, in the
 *   origin's other tabs.
 *
 * Tokens in IndexedDB are readable by any script of the origin: keep the origin free of XSS.
 *
 * @example
 * ```ts
 * const authProvider = browserOAuthProvider({
 *   serverUrl: 'https://mcp.example.com/mcp',
 *   redirectUrl: new URL('/oauth-callback.html', location.origin),
 * });
 * const server = mcpServer({ url: 'https://mcp.example.com/mcp', authProvider });
 * button.onclick = () => void server.authorize(); // opens the popup within the click
 * ```
 *
 * @throws SwitchboardError `invalid_input` for invalid settings (see `OAuthClientSettings`).
 */
export function browserOAuthProvider(
  options: BrowserOAuthProviderOptions,
): InteractiveOAuthProvider {
  return new BrowserOAuthProvider(options);
}

/** See {@link browserOAuthProvider}. */
class BrowserOAuthProvider extends StoredOAuthProvider implements InteractiveOAuthProvider {
  readonly #options: BrowserOAuthProviderOptions;
  readonly #redirectOrigin: string;
  /** Bumped by each `authorize`: an older popup wait that finishes later is superseded. */
  #generation = 0;

  constructor(options: BrowserOAuthProviderOptions) {
    const databaseName = options.databaseName ?? DEFAULT_OAUTH_DATABASE_NAME;
    const changeChannel = broadcastChangeChannel(`switchboard-oauth:${databaseName}`);
    super({
      ...options,
      credentialStore: new IndexedDbOAuthCredentialStore({
        databaseName,
        ...(options.indexedDB === undefined ? {} : { indexedDB: options.indexedDB }),
      }),
      flowStore: new SessionStorageOAuthFlowStore(
        options.sessionStorage === undefined ? {} : { storage: options.sessionStorage },
      ),
      refreshLock: defaultRefreshLock(),
      ...(changeChannel === undefined ? {} : { changeChannel }),
    });
    this.#options = options;
    this.#redirectOrigin = new URL(options.redirectUrl).origin;
  }

  /** See {@link InteractiveOAuthProvider.authorize}. Opens the popup synchronously. */
  authorize(
    authorizationUrl: URL,
    options: { signal?: AbortSignal } = {},
  ): Promise<URLSearchParams | undefined> {
    const { signal } = options;
    const refusal = authorizationRefusal(this.where, authorizationUrl, signal);
    if (refusal !== undefined) return Promise.reject(refusal);
    const generation = ++this.#generation;
    let popup: Window | null | undefined;
    try {
      popup = globalThis.window.open(
        authorizationUrl.href,
        this.#options.popupName ?? DEFAULT_POPUP_NAME,
        this.#options.popupFeatures ?? DEFAULT_POPUP_FEATURES,
      );
    } catch {
      popup = null;
    }
    if (popup === null || popup === undefined) return this.#redirect(authorizationUrl);
    try {
      popup.focus();
    } catch {
      // Focus is a nicety.
    }
    return this.#waitForPopup(popup, generation, signal);
  }

  /** See {@link InteractiveOAuthProvider.takeRedirectCallback}. */
  async takeRedirectCallback(): Promise<URLSearchParams | undefined> {
    const state = await this.issuedState();
    if (state === undefined) return undefined;
    const storage = this.#storage();
    const pending = readPendingRedirect(storage, state);
    if (pending?.query === undefined) return undefined;
    writePendingRedirect(storage, state, undefined);
    await this.consumeState(state);
    return checkAuthorizationCallback(new URLSearchParams(pending.query), state, this.where);
  }

  async #waitForPopup(
    popup: Window,
    generation: number,
    signal: AbortSignal | undefined,
  ): Promise<URLSearchParams> {
    const query = await waitForPopupCallback({
      popup,
      target: globalThis.window,
      redirectOrigin: this.#redirectOrigin,
      where: this.where,
      timeoutMs: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      pollIntervalMs: this.#options.popupPollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      ...(signal === undefined ? {} : { signal }),
    });
    if (generation !== this.#generation) {
      throw authorizationFailure(
        'closed',
        `${this.where}: a newer authorization replaced this one in the same window.`,
      );
    }
    const state = await this.issuedState();
    // Checked first: a denial (or an answer without a code) leaves the state issued, so the
    // same authorization URL can be opened again; only an answer with a code consumes it.
    const checked = checkAuthorizationCallback(new URLSearchParams(query), state, this.where);
    await this.consumeState(state);
    return checked;
  }

  /** The popup was blocked: leave for the authorization server, then come back here. */
  async #redirect(authorizationUrl: URL): Promise<undefined> {
    const state = await this.issuedState();
    if (state !== undefined) {
      try {
        writePendingRedirect(this.#storage(), state, { returnTo: globalThis.location.href });
      } catch {
        // Without storage the callback page returns to its default page.
      }
    }
    globalThis.location.assign(authorizationUrl.href);
    return undefined;
  }

  /** @throws SwitchboardError `storage_error` when `sessionStorage` is not available. */
  #storage(): Storage {
    try {
      const storage = this.#options.sessionStorage ?? globalThis.sessionStorage;
      if (storage !== undefined) return storage;
    } catch (error) {
      throw new SwitchboardError(
        'storage_error',
        `${this.where}: sessionStorage is not available.`,
        {
          cause: error,
        },
      );
    }
    throw new SwitchboardError('storage_error', `${this.where}: sessionStorage is not available.`);
  }
}
