import { SwitchboardError } from '../errors/switchboard-error.ts';
import {
  authorizationAborted,
  authorizationFailure,
  checkAuthorizationCallback,
  authorizationRefusal,
} from '../oauth/authorization-callback.ts';
import type { InteractiveOAuthProvider } from '../oauth/interactive-oauth-provider.ts';
import { MemoryOAuthStore } from '../oauth/memory-oauth-store.ts';
import type { OAuthClientSettings } from '../oauth/oauth-client-settings.ts';
import type { OAuthFlowState, OAuthServerCredentials } from '../oauth/oauth-stores.ts';
import { inProcessLock } from '../oauth/refresh-lock.ts';
import { StoredOAuthProvider } from '../oauth/stored-oauth-provider.ts';
import { FileOAuthCredentialStore } from './file-credential-store.ts';
import {
  startLoopbackRedirectListener,
  type LoopbackRedirectListener,
} from './loopback-redirect-listener.ts';

/** Options of {@link nodeOAuthProvider}. */
export interface NodeOAuthProviderOptions extends Omit<OAuthClientSettings, 'redirectUrl'> {
  /**
   * Opens `url` (the authorization request) in the user's browser. Required. Pass e.g. the
   * `open` package: `openBrowser: (url) => open(url).then(() => undefined)`, or print the URL
   * for the user to open. A rejection fails `authorize` with `needs_auth` (`open_failed`).
   */
  openBrowser: (url: string) => void | Promise<void>;
  /** The loopback listener's port on 127.0.0.1. Default 0: an ephemeral port. */
  port?: number;
  /** The loopback listener's callback path. Default `'/callback'`. */
  callbackPath?: string;
  /**
   * A JSON file for tokens and client registrations (mode 0o600, rewritten atomically), so they
   * outlive the process. Default: memory only.
   */
  credentialsFile?: string;
  /** How long `authorize` waits for the browser to come back, in ms. Default 600 000 (10 min). */
  timeoutMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The {@link InteractiveOAuthProvider} of {@link nodeOAuthProvider}. */
export interface NodeOAuthProvider extends InteractiveOAuthProvider {
  /** `http://127.0.0.1:<port><callbackPath>`: the loopback redirect URI. */
  readonly redirectUrl: string;
  /**
   * Stops the loopback listener; a pending `authorize` rejects with `aborted`. Stored tokens stay
   * usable (refreshes need no listener). Idempotent.
   */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * The {@link InteractiveOAuthProvider} for Node (a native app in RFC 8252 terms; public client
 * with PKCE, RFC 7636; MCP authorization 2025-11-25). It binds a loopback HTTP listener on
 * 127.0.0.1 at creation (RFC 8252 §7.3; `port` 0 = ephemeral), so `redirectUrl` is known before
 * the SDK registers the client. `authorize(url)` calls `openBrowser(url)` and waits for the
 * browser to come back to the listener, which shows a small "You can close this tab" page; the
 * answer's `state` is checked (one use) before `authorize` resolves with the query for
 * `McpServer.finishAuthorization`.
 *
 * Tokens and client registrations: memory, or `credentialsFile`. The code verifier, state and
 * discovery state: memory. Refreshes through `coordinateTokenRequests` are serialized within the
 * process. A stored dynamic registration made for another loopback port is not reused (the SDK
 * registers again). Call `close()` when done.
 *
 * @example
 * ```ts
 * import open from 'open';
 * const authProvider = await nodeOAuthProvider({
 *   serverUrl: 'https://mcp.example.com/mcp',
 *   openBrowser: async (url) => void (await open(url)),
 *   credentialsFile: join(homedir(), '.config', 'my-app', 'oauth.json'),
 * });
 * const server = mcpServer({ url: 'https://mcp.example.com/mcp', authProvider });
 * await server.authorize(); // opens the browser, waits, exchanges the code
 * ```
 *
 * @throws SwitchboardError `connection_refused` when the port cannot be bound; `invalid_input`
 *   for invalid settings.
 */
export async function nodeOAuthProvider(
  options: NodeOAuthProviderOptions,
): Promise<NodeOAuthProvider> {
  if (typeof options.openBrowser !== 'function') {
    throw new SwitchboardError('invalid_input', 'nodeOAuthProvider needs an openBrowser function.');
  }
  let provider: NodeOAuthProviderImplementation | undefined;
  const listener = await startLoopbackRedirectListener({
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.callbackPath === undefined ? {} : { callbackPath: options.callbackPath }),
    onCallback: async (query) => (await provider?.deliver(query)) ?? false,
  });
  try {
    provider = new NodeOAuthProviderImplementation(options, listener);
  } catch (error) {
    await listener.close();
    throw error;
  }
  return provider;
}

/** A pending `authorize`. */
interface PendingAuthorization {
  resolve: (query: URLSearchParams) => void;
  reject: (error: Error) => void;
}

/** See {@link nodeOAuthProvider}. */
class NodeOAuthProviderImplementation extends StoredOAuthProvider implements NodeOAuthProvider {
  readonly #options: NodeOAuthProviderOptions;
  readonly #listener: LoopbackRedirectListener;
  #pending: PendingAuthorization | undefined;
  #closed = false;

  constructor(options: NodeOAuthProviderOptions, listener: LoopbackRedirectListener) {
    super({
      ...options,
      redirectUrl: listener.redirectUrl,
      credentialStore:
        options.credentialsFile === undefined
          ? new MemoryOAuthStore<OAuthServerCredentials>()
          : new FileOAuthCredentialStore({ path: options.credentialsFile }),
      flowStore: new MemoryOAuthStore<OAuthFlowState>(),
      refreshLock: inProcessLock,
    });
    this.#options = options;
    this.#listener = listener;
  }

  /** See {@link InteractiveOAuthProvider.authorize}: opens the system browser. */
  authorize(
    authorizationUrl: URL,
    options: { signal?: AbortSignal } = {},
  ): Promise<URLSearchParams | undefined> {
    const { signal } = options;
    const refusal = authorizationRefusal(this.where, authorizationUrl, signal);
    if (refusal !== undefined) return Promise.reject(refusal);
    if (this.#closed) {
      return Promise.reject(
        new SwitchboardError('invalid_input', `${this.where}: the provider was closed.`),
      );
    }
    this.#pending?.reject(
      authorizationFailure('closed', `${this.where}: a newer authorization replaced this one.`),
    );
    const answer = new Promise<URLSearchParams>((resolve, reject) => {
      const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.#pending === pending) this.#pending = undefined;
      };
      const pending: PendingAuthorization = {
        resolve: (query) => {
          settle();
          resolve(query);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const onAbort = () => {
        if (signal !== undefined) pending.reject(authorizationAborted(this.where, signal));
      };
      const timer = setTimeout(() => {
        pending.reject(
          authorizationFailure(
            'timeout',
            `${this.where}: the authorization did not finish within ${Math.round(timeoutMs / 1000)} s.`,
          ),
        );
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending = pending;
    });
    const pending = this.#pending;
    void (async () => {
      try {
        await this.#options.openBrowser(authorizationUrl.href);
      } catch (error) {
        pending?.reject(
          authorizationFailure('open_failed', `${this.where}: could not open the browser.`, {
            cause: error,
          }),
        );
      }
    })();
    return answer;
  }

  /** Always `undefined`: Node has no redirect fallback. */
  async takeRedirectCallback(): Promise<URLSearchParams | undefined> {
    return undefined;
  }

  /** See {@link NodeOAuthProvider.close}. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pending?.reject(
      new SwitchboardError('aborted', `${this.where}: the provider was closed.`),
    );
    await this.#listener.close();
  }

  /**
   * Hands a loopback callback's query to the pending `authorize`; `true` when it completed it.
   * An answer without the issued `state` is ignored (the `authorize` keeps waiting); with it, an
   * OAuth `error` or a missing code rejects the pending `authorize` and leaves the state issued
   * (so the same authorization URL can be opened again), and a code consumes the state (one use).
   */
  async deliver(query: URLSearchParams): Promise<boolean> {
    const pending = this.#pending;
    if (pending === undefined) return false;
    const state = await this.issuedState();
    // Anything that can reach 127.0.0.1 (another local process, a web page) can call the
    // listener: an answer without the issued state is ignored, so the sign-in keeps waiting for
    // the real one instead of being cancelled by a forged request.
    if (state === undefined || query.get('state') !== state) return false;
    if (this.#pending !== pending) return false;
    this.#pending = undefined;
    let checked: URLSearchParams;
    try {
      checked = checkAuthorizationCallback(query, state, this.where);
    } catch (error) {
      // A denial keeps the state: the same authorization URL may be opened again.
      pending.reject(error as Error);
      return false;
    }
    try {
      await this.consumeState(state);
    } catch (error) {
      pending.reject(error as Error);
      return false;
    }
    pending.resolve(checked);
    return true;
  }
}
