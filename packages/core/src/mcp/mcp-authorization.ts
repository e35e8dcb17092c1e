import {
  StreamableHTTPClientTransport,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type Transport,
} from '@modelcontextprotocol/client';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { SecretScrubber } from '../internal/secret-scrubber.ts';
import type {
  InteractiveOAuthProvider,
  OAuthAccountState,
} from '../oauth/interactive-oauth-provider.ts';
import { scrubError } from './connection/scrub-error.ts';
import { withSignal } from './connection/with-signal.ts';
import { toMcpError } from './to-mcp-error.ts';

/** What {@link McpAuthorization.authorize} (and `McpServer.authorize`) did. */
export type McpAuthorizeOutcome =
  /** Signed in (or already was): the server is connected. */
  | 'authorized'
  /** The popup was blocked: the page is navigating to the authorization server (redirect flow). */
  | 'redirected';

/** Options of {@link McpAuthorization}. */
export interface McpAuthorizationOptions {
  /** The server's `authProvider`; without one every OAuth method throws `invalid_input`. */
  provider: OAuthClientProvider | undefined;
  /** Names the server in messages. */
  where: string;
  /** The server's HTTP endpoint (OAuth needs one). */
  url: URL | undefined;
  /** The fetch that reaches the network. Default: the global `fetch` at call time. */
  fetch?: typeof fetch;
  /** The secrets the server's connections sent: scrubbed from the errors this throws. */
  scrubber: SecretScrubber;
  /** Names of static request headers, for the CORS hint of a failed request. */
  headerNames?: readonly string[];
}

/** Options of {@link McpAuthorization.finish}. */
export interface McpFinishAuthorizationOptions {
  /** The callback's `iss` parameter (RFC 9207), when the code is passed as a string. */
  iss?: string;
  /** Aborting rejects at once with `aborted` (the token request may still complete). */
  signal?: AbortSignal;
}

/** The steps of {@link McpAuthorization.authorize} that belong to the server. */
export interface AuthorizeSteps {
  /** Connects (and so learns whether, and where, the user must sign in). */
  connect(): Promise<void>;
  /** Exchanges the callback's code and reconnects. */
  finish(callback: URLSearchParams): Promise<void>;
  signal?: AbortSignal;
}

/**
 * The OAuth side of one MCP server (MCP authorization 2025-11-25), cut where the MCP SDK cuts it
 * (`auth.ts`, never the client): it wraps the `authProvider` the SDK transports get (recording the
 * authorization URL, refusing an authorization server without PKCE S256, coordinating token
 * requests), holds the state of a sign-in in progress (the pending URL and the transport that
 * still needs `finishAuth`), and runs the flows: finish, authorize, sign out, the sign-in that
 * comes back by redirect, and the account state. The connection reports to it
 * ({@link noteUnauthorized}); it never calls the connection.
 */
export class McpAuthorization {
  /** The provider as the SDK transports see it (see {@link McpAuthorization}); none without one. */
  readonly provider: OAuthClientProvider | undefined;
  /** The fetch for the SDK's OAuth requests, when the provider coordinates them. */
  readonly authFetch: typeof fetch | undefined;
  readonly #options: McpAuthorizationOptions;
  readonly #interactive: InteractiveOAuthProvider | undefined;
  /** The URL the provider was last sent to (`redirectToAuthorization`), until finished. */
  #pendingUrl: URL | undefined;
  /** The transport whose request needed authorization: its `finishAuth` completes it. */
  #transport: Transport | undefined;
  /** {@link authorize} calls in progress: they connect by themselves when signed in. */
  #authorizing = 0;
  /** Finishing a sign-in that came back by redirect (checked once, before the first connect). */
  #redirectFinish: Promise<void> | undefined;
  #account: OAuthAccountState | undefined;
  #onAccount: ((account: OAuthAccountState) => void) | undefined;

  constructor(options: McpAuthorizationOptions) {
    this.#options = options;
    const provider = options.provider;
    this.#interactive = interactiveProvider(provider);
    this.provider = provider === undefined ? undefined : this.#recordRedirects(provider);
    this.authFetch = provider === undefined ? undefined : coordinatedAuthFetch(provider, options);
  }

  /**
   * The authorization URL the SDK asked the user to visit, until {@link finish} completes it. It
   * carries `state` and the PKCE challenge, never a token.
   */
  get pendingUrl(): URL | undefined {
    return this.#pendingUrl;
  }

  /** True while an {@link authorize} call is in progress. */
  get authorizing(): boolean {
    return this.#authorizing > 0;
  }

  /** True with an `InteractiveOAuthProvider` (it can take the user to sign in). */
  get interactive(): boolean {
    return this.#interactive !== undefined;
  }

  /** A request on `transport` needed authorization: {@link finish} completes it there. */
  noteUnauthorized(transport: Transport): void {
    this.#transport = transport;
  }

  /**
   * Forgets the pending authorization (its `state` or code was used, or refused, or the server
   * was closed): the next connect that meets a 401 starts a new one.
   */
  dropPending(): void {
    this.#pendingUrl = undefined;
    this.#transport = undefined;
  }

  /**
   * `error` with the pending authorization URL in `details.authorizationUrl` when it is a
   * `needs_auth` failure that does not carry one yet; otherwise `error`.
   */
  withPendingUrl(error: SwitchboardError, cause: unknown): SwitchboardError {
    if (
      error.code !== 'needs_auth' ||
      this.#pendingUrl === undefined ||
      error.details?.authorizationUrl !== undefined
    ) {
      return error;
    }
    // Shown to users as it is; the way on (authorize(), or details.authorizationUrl and
    // finishAuthorization()) is in the TSDoc of McpServer.
    return new SwitchboardError('needs_auth', `${this.#options.where} needs you to sign in.`, {
      cause,
      details: { authorizationUrl: this.#pendingUrl.href },
    });
  }

  /**
   * Completes an authorization a `needs_auth` failure started: the SDK transport's `finishAuth`
   * validates `iss` (RFC 9207) and exchanges the code for tokens, which the provider saves.
   * Works after a page reload too: a fresh transport finishes from the provider's persisted
   * discovery state and code verifier. Check `state` before calling (the SDK does not).
   *
   * @param callback The callback URL's `searchParams` (preferred), or the bare `code`.
   * @throws SwitchboardError `invalid_input` (no `authProvider`, or not an HTTP server),
   *   `needs_auth`, `http_status`, `connection_refused`, `aborted`, or `mcp_error` (e.g. an `iss`
   *   mismatch); messages never contain the code or a token.
   */
  async finish(
    callback: string | URLSearchParams,
    options: McpFinishAuthorizationOptions = {},
  ): Promise<void> {
    const provider = this.provider;
    if (provider === undefined) {
      throw new SwitchboardError('invalid_input', `${this.#options.where} has no authProvider.`);
    }
    const transport = this.#transport ?? this.#finishingTransport(provider);
    const finishing = transport as Transport & {
      finishAuth?: (callback: string | URLSearchParams, iss?: string) => Promise<void>;
    };
    if (typeof finishing.finishAuth !== 'function') {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#options.where}: its transport has no OAuth.`,
      );
    }
    const { signal } = options;
    try {
      const pending =
        typeof callback === 'string'
          ? finishing.finishAuth(callback, options.iss)
          : finishing.finishAuth(callback);
      await withSignal(pending, signal, (reason) => this.#classify(reason, signal));
    } catch (error) {
      throw this.#classify(error, signal);
    }
    if (this.#transport === transport) this.#transport = undefined;
    this.#pendingUrl = undefined;
  }

  /**
   * Signs the user in: with an authorization pending the provider's `authorize` opens it at once
   * (a browser popup: call this synchronously from a click handler); otherwise it connects first
   * and signs in only if the server asks. Then `steps.finish` exchanges the code.
   *
   * @returns `authorized`, or `redirected` when the page is leaving for the authorization server.
   * @throws SwitchboardError `invalid_input` without an `InteractiveOAuthProvider`; `needs_auth`
   *   when the user denied, closed the popup, or the state did not match; `aborted`; or any
   *   failure of `steps.connect` / `steps.finish`.
   */
  authorize(steps: AuthorizeSteps): Promise<McpAuthorizeOutcome> {
    this.#authorizing++;
    // Called synchronously: the popup opens within the click's activation.
    return this.#authorizeOnce(steps).finally(() => {
      this.#authorizing--;
    });
  }

  async #authorizeOnce(steps: AuthorizeSteps): Promise<McpAuthorizeOutcome> {
    const provider = this.#interactive;
    if (provider === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#options.where} has no interactive authProvider (browserOAuthProvider or nodeOAuthProvider).`,
      );
    }
    let url = this.#pendingUrl;
    if (url === undefined) {
      try {
        await steps.connect();
        return 'authorized';
      } catch (error) {
        if (!isSwitchboardError(error, 'needs_auth')) throw error;
      }
      url = this.#pendingUrl;
      if (url === undefined) {
        throw new SwitchboardError(
          'needs_auth',
          `${this.#options.where} refused its token but started no authorization.`,
        );
      }
    }
    let callback: URLSearchParams | undefined;
    try {
      // No await before this call on the pending path: a browser opens its popup only within
      // the click's activation.
      callback = await provider.authorize(
        url,
        steps.signal === undefined ? {} : { signal: steps.signal },
      );
    } catch (error) {
      // A closed popup, a timeout or a denial leave the request usable for another Connect; an
      // answer that did not fit it (state) means the next Connect needs a new one.
      const reason = isSwitchboardError(error) ? error.details?.reason : undefined;
      if (
        (reason === 'state_mismatch' || reason === 'invalid_response') &&
        this.#pendingUrl === url
      ) {
        this.dropPending();
      }
      throw error;
    }
    if (callback === undefined) return 'redirected';
    try {
      await steps.finish(callback);
    } catch (error) {
      // The code was spent (or refused): a second Connect must not reopen the same request
      // (a newer one the reconnect started is kept).
      if (this.#pendingUrl === url) this.dropPending();
      throw error;
    }
    return 'authorized';
  }

  /**
   * Signs out with the provider (its tokens, and with `forgetClient` its registration) and
   * forgets the pending authorization. Ending the sessions is the server's part.
   *
   * @throws SwitchboardError `invalid_input` without an `InteractiveOAuthProvider`.
   */
  async signOut(options: { forgetClient?: boolean } = {}): Promise<void> {
    const provider = this.#interactive;
    if (provider === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#options.where} has no interactive authProvider.`,
      );
    }
    await provider.signOut(options.forgetClient === true ? { forgetClient: true } : {});
    this.dropPending();
  }

  /**
   * Once per server: finishes a sign-in that came back by redirect (the popup was blocked),
   * before the first connect. A failure is left to the connect, which then asks again.
   */
  finishRedirectedSignIn(): Promise<void> {
    const provider = this.#interactive;
    if (provider === undefined) return Promise.resolve();
    this.#redirectFinish ??= (async () => {
      const callback = await provider.takeRedirectCallback().catch(() => undefined);
      if (callback === undefined) return;
      await this.finish(callback).catch(() => undefined);
    })();
    return this.#redirectFinish;
  }

  /**
   * Calls `onAccount` with the account state now and after every change (tokens saved, signed
   * out, another tab), only when it differs from the last one. Nothing without an
   * `InteractiveOAuthProvider`.
   *
   * @returns A function that stops watching.
   */
  watchAccount(onAccount: (account: OAuthAccountState) => void): () => void {
    const provider = this.#interactive;
    if (provider === undefined) return () => undefined;
    this.#onAccount = onAccount;
    const unsubscribe = provider.subscribe(() => void this.refreshAccount());
    void this.refreshAccount();
    return () => {
      unsubscribe();
      this.#onAccount = undefined;
    };
  }

  /** Reads the account state again and reports it to the watcher when it changed. */
  async refreshAccount(): Promise<void> {
    const provider = this.#interactive;
    if (provider === undefined) return;
    let account: OAuthAccountState;
    try {
      account = await provider.accountState();
    } catch {
      return; // storage unavailable: the status still tells the story
    }
    if (this.#account !== undefined && sameAccount(this.#account, account)) return;
    this.#account = account;
    this.#onAccount?.(account);
  }

  #classify(error: unknown, signal: AbortSignal | undefined): SwitchboardError {
    const { where, scrubber, headerNames } = this.#options;
    const classified = scrubError(
      scrubber,
      toMcpError(error, where, signal, { headerNames: [...(headerNames ?? [])] }),
    );
    return this.withPendingUrl(classified, error);
  }

  /**
   * The provider as the SDK sees it: every member is the provider's own (called on it), except
   * that `redirectToAuthorization` also notes the URL for the `needs_auth` error.
   */
  #recordRedirects(provider: OAuthClientProvider): OAuthClientProvider {
    const redirect = async (authorizationUrl: URL): Promise<void> => {
      this.#pendingUrl = authorizationUrl;
      await provider.redirectToAuthorization(authorizationUrl);
    };
    const where = this.#options.where;
    const saveDiscoveryState = provider.saveDiscoveryState?.bind(provider);
    // The SDK calls this after discovery, before it registers or builds the authorization
    // request: the place to refuse an authorization server without PKCE S256 (MCP
    // authorization 2025-11-25: absent `code_challenge_methods_supported` means refuse; the SDK
    // only refuses a list without S256). Only when the provider keeps discovery state: the SDK
    // treats a provider with `saveDiscoveryState` as one that also returns it.
    // PKCE belongs to the authorization-code flow: grants without a redirect (client
    // credentials, jwt-bearer) are not checked.
    const checkedSave =
      saveDiscoveryState === undefined || provider.redirectUrl === undefined
        ? undefined
        : async (state: OAuthDiscoveryState): Promise<void> => {
            refuseWithoutPkce(state, where);
            await saveDiscoveryState(state);
          };
    return new Proxy(provider, {
      get(target, property) {
        if (property === 'redirectToAuthorization') return redirect;
        if (property === 'saveDiscoveryState' && checkedSave !== undefined) return checkedSave;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** An unstarted transport, only to run the SDK's `finishAuth` (code exchange) with `provider`. */
  #finishingTransport(provider: OAuthClientProvider): Transport {
    const url = this.#options.url;
    if (url === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#options.where}: OAuth needs an HTTP server.`,
      );
    }
    const fetchImpl = this.authFetch ?? this.#options.fetch;
    return new StreamableHTTPClientTransport(url, {
      authProvider: provider,
      ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
    });
  }
}

/**
 * The coordinated fetch when the provider coordinates its token requests (refresh single-flight
 * across requests and tabs; `InteractiveOAuthProvider.coordinateTokenRequests`), else
 * `undefined`. Made once per server so every session shares it.
 */
function coordinatedAuthFetch(
  provider: OAuthClientProvider,
  options: McpAuthorizationOptions,
): typeof fetch | undefined {
  const coordinate = (provider as { coordinateTokenRequests?: unknown }).coordinateTokenRequests;
  if (typeof coordinate !== 'function') return undefined;
  const base: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  return (coordinate as (next: typeof fetch) => typeof fetch).call(provider, base);
}

/**
 * @throws SwitchboardError `invalid_response` when the authorization server's metadata does not
 *   list `S256` in `code_challenge_methods_supported` (absent counts as not supported).
 */
function refuseWithoutPkce(state: OAuthDiscoveryState, where: string): void {
  const metadata = state.authorizationServerMetadata as
    { issuer?: unknown; code_challenge_methods_supported?: unknown } | undefined;
  if (metadata === undefined) return; // nothing discovered: the SDK's defaults apply
  const methods = metadata.code_challenge_methods_supported;
  if (Array.isArray(methods) && methods.includes('S256')) return;
  const issuer =
    typeof metadata.issuer === 'string' ? metadata.issuer : state.authorizationServerUrl;
  throw new SwitchboardError(
    'invalid_response',
    `${where}: its authorization server ${issuer} does not support PKCE with S256 (code_challenge_methods_supported), which MCP authorization requires; the sign-in was refused.`,
    { details: { issuer } },
  );
}

function sameAccount(a: OAuthAccountState, b: OAuthAccountState): boolean {
  return (
    a.signedIn === b.signedIn &&
    a.issuer === b.issuer &&
    a.scope === b.scope &&
    a.expiresAt === b.expiresAt
  );
}

/** `provider` when it is an {@link InteractiveOAuthProvider} (it can take the user to sign in). */
function interactiveProvider(
  provider: OAuthClientProvider | undefined,
): InteractiveOAuthProvider | undefined {
  const candidate = provider as Partial<InteractiveOAuthProvider> | undefined;
  return typeof candidate?.authorize === 'function' &&
    typeof candidate.takeRedirectCallback === 'function' &&
    typeof candidate.signOut === 'function' &&
    typeof candidate.accountState === 'function' &&
    typeof candidate.subscribe === 'function'
    ? (candidate as InteractiveOAuthProvider)
    : undefined;
}
