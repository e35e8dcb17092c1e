import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { describeOAuthServer } from './authorization-callback.ts';
import type { OAuthAccountState } from './interactive-oauth-provider.ts';
import { AccountChanges } from './account-changes.ts';
import type { OAuthChangeChannel } from './oauth-change-channel.ts';
import { findEntry, latestEntry, upsertEntry, withoutEntries } from './issuer-credentials.ts';
import {
  buildClientMetadata,
  preRegisteredClientFor,
  serverKey,
  type OAuthClientSettings,
} from './oauth-client-settings.ts';
import type {
  OAuthCredentialStore,
  OAuthFlowState,
  OAuthFlowStore,
  OAuthServerCredentials,
  SavedOAuthTokens,
} from './oauth-stores.ts';
import { inProcessLock, type RefreshLock } from './refresh-lock.ts';
import { coordinateTokenRequests } from './token-request-coordinator.ts';

/** Options of {@link StoredOAuthProvider}. */
export interface StoredOAuthProviderOptions extends OAuthClientSettings {
  /** Where tokens and client registrations persist (keyed by server URL, then issuer). */
  credentialStore: OAuthCredentialStore;
  /** Where the code verifier, state and discovery state wait for the callback. */
  flowStore: OAuthFlowStore;
  /** Serializes refreshes (see `coordinateTokenRequests`). Default: in-process. */
  refreshLock?: RefreshLock;
  /** Carries change notifications to other contexts. Default: none. */
  changeChannel?: OAuthChangeChannel;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The credential scopes of `OAuthClientProvider.invalidateCredentials`. */
export type OAuthCredentialScope = 'all' | 'client' | 'tokens' | 'verifier' | 'discovery';

/**
 * The storage half of the OAuth client providers: the MCP SDK's `OAuthClientProvider` over a
 * persistent credential store and a flow store, plus sign-out, account state, change
 * subscriptions and refresh coordination. The SDK does the protocol (MCP authorization
 * 2025-11-25: RFC 9728 / RFC 8414 discovery, registration, PKCE RFC 7636, `resource` RFC 8707,
 * `iss` RFC 9207, refresh RFC 6749 §6); subclasses add the user's trip to the authorization
 * server (`authorize`).
 *
 * Storage layout: per server URL one {@link OAuthServerCredentials} record — tokens and client
 * information per `issuer` (the SDK passes it as `ctx.issuer`; RFC 6749 §2.2) and the issuer of
 * the latest tokens, which the SDK's ctx-less per-request `tokens()` read returns. Saved tokens
 * carry `expiresAt` (ms since the epoch) computed from `expires_in` at save time. Pre-registered
 * client secrets are never stored. A stored dynamic registration whose `redirect_uris` lack the
 * current redirect URL (a new loopback port) is ignored, so the SDK registers again.
 *
 * `redirectToAuthorization` only records the URL: navigating needs a user gesture.
 *
 * Secrets (tokens, codes, verifiers, client secrets) never appear in error messages,
 * `toString()`, `JSON.stringify(provider)` or `util.inspect(provider)`. Store failures reject
 * with `SwitchboardError` `storage_error`.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** The client ID metadata document URL, when configured (see `OAuthClientSettings`). */
  readonly clientMetadataUrl?: string;
  readonly #settings: OAuthClientSettings;
  readonly #key: string;
  readonly #redirectUrl: string;
  readonly #clientMetadata: OAuthClientMetadata;
  readonly #credentials: OAuthCredentialStore;
  readonly #flow: OAuthFlowStore;
  readonly #lock: RefreshLock;
  readonly #now: () => number;
  readonly #changes: AccountChanges;
  #lastAuthorizationUrl: URL | undefined;
  /**
   * Access tokens the refresh coordinator already stored (or answered from storage) and handed
   * to the SDK, which saves them once more: that save is skipped, so it cannot bring tokens back
   * after a sign-out that landed in between.
   */
  readonly #coordinatedAccessTokens = new Set<string>();

  /** @throws SwitchboardError `invalid_input` for invalid settings (see `OAuthClientSettings`). */
  constructor(options: StoredOAuthProviderOptions) {
    this.#clientMetadata = buildClientMetadata(options);
    this.#settings = options;
    this.#key = serverKey(options.serverUrl);
    this.#redirectUrl = String(options.redirectUrl);
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
    this.#credentials = options.credentialStore;
    this.#flow = options.flowStore;
    this.#lock = options.refreshLock ?? inProcessLock;
    this.#changes = new AccountChanges(this.#key, options.changeChannel);
    this.#now = options.now ?? Date.now;
  }

  /** The MCP server URL credentials are stored under (`href`, no fragment). */
  get serverUrl(): string {
    return this.#key;
  }

  /** The redirect URI (RFC 6749 §3.1.2). */
  get redirectUrl(): string {
    return this.#redirectUrl;
  }

  /** The client metadata for dynamic registration (RFC 7591 §2); see `OAuthClientSettings`. */
  get clientMetadata(): OAuthClientMetadata {
    return structuredClone(this.#clientMetadata);
  }

  /** The URL the SDK last asked to send the user to, until a sign-out. */
  get lastAuthorizationUrl(): URL | undefined {
    return this.#lastAuthorizationUrl === undefined
      ? undefined
      : new URL(this.#lastAuthorizationUrl);
  }

  /** A fresh random `state` (256 bits, base64url; RFC 6749 §10.12), kept in the flow store. */
  async state(): Promise<string> {
    const state = randomToken();
    await this.#updateFlow((flow) => ({ ...flow, state }));
    return state;
  }

  /**
   * The client for `ctx.issuer`: the pre-registered one when configured, else the stored
   * registration (without `ctx`: the latest issuer's).
   */
  async clientInformation(
    ctx?: OAuthClientInformationContext,
  ): Promise<StoredOAuthClientInformation | undefined> {
    const preRegistered = preRegisteredClientFor(this.#settings.preRegistered, ctx?.issuer);
    if (preRegistered !== undefined) {
      return ctx === undefined ? { ...preRegistered } : { ...preRegistered, issuer: ctx.issuer };
    }
    const credentials = await this.#readCredentials();
    const entry = ctx === undefined ? latestEntry(credentials) : findEntry(credentials, ctx.issuer);
    const client = entry?.client;
    if (client === undefined) return undefined;
    const redirectUris = (client as { redirect_uris?: unknown }).redirect_uris;
    if (
      Array.isArray(redirectUris) &&
      !redirectUris.some((uri) => sameUrl(uri, this.#redirectUrl))
    ) {
      return undefined;
    }
    return client;
  }

  /** Stores a registration under `ctx.issuer` (pre-registered clients are not stored). */
  async saveClientInformation(
    information: StoredOAuthClientInformation,
    ctx?: OAuthClientInformationContext,
  ): Promise<void> {
    const issuer = ctx?.issuer ?? information.issuer ?? '';
    const preRegistered = preRegisteredClientFor(this.#settings.preRegistered, issuer);
    if (preRegistered?.client_id === information.client_id) return;
    await this.#updateCredentials((credentials) =>
      upsertEntry(credentials, issuer, (entry) => ({
        ...entry,
        client: { ...information, issuer },
      })),
    );
  }

  /** The tokens from `ctx.issuer`; without `ctx`, the most recently saved ones. */
  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const credentials = await this.#readCredentials();
    const entry = ctx === undefined ? latestEntry(credentials) : findEntry(credentials, ctx.issuer);
    return entry?.tokens?.tokens;
  }

  /**
   * Stores tokens under `ctx.issuer` with `expiresAt` from `expires_in`, marks that issuer the
   * latest, and notifies subscribers.
   */
  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    if (this.#coordinatedAccessTokens.delete(tokens.access_token)) return;
    await this.#storeTokens(tokens, ctx?.issuer ?? tokens.issuer ?? '', undefined);
  }

  /**
   * Stores tokens under `issuer` (see {@link saveTokens}); with `replacing`, only while that
   * issuer's stored refresh token is still `replacing`. Resolves whether it stored them.
   */
  async #storeTokens(
    tokens: StoredOAuthTokens,
    issuer: string,
    replacing: string | undefined,
  ): Promise<boolean> {
    const savedAt = this.#now();
    const expiresIn = Number(tokens.expires_in);
    const saved: SavedOAuthTokens = {
      tokens: { ...tokens, issuer },
      savedAt,
      ...(tokens.expires_in !== undefined && Number.isFinite(expiresIn) && expiresIn >= 0
        ? { expiresAt: savedAt + expiresIn * 1000 }
        : {}),
    };
    let stored = false;
    await this.#updateCredentials((credentials) => {
      if (
        replacing !== undefined &&
        findEntry(credentials, issuer)?.tokens?.tokens.refresh_token !== replacing
      ) {
        return credentials;
      }
      stored = true;
      return {
        ...upsertEntry(credentials, issuer, (entry) => ({ ...entry, tokens: saved })),
        latestIssuer: issuer,
      };
    });
    if (stored) this.#changes.notify();
    return stored;
  }

  /** Records `authorizationUrl` (see {@link lastAuthorizationUrl}); never navigates. */
  redirectToAuthorization(authorizationUrl: URL): void {
    this.#lastAuthorizationUrl = new URL(authorizationUrl);
  }

  /** Keeps the PKCE code verifier (RFC 7636 §4.1) in the flow store. */
  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.#updateFlow((flow) => ({ ...flow, codeVerifier }));
  }

  /**
   * The stored PKCE code verifier.
   *
   * @throws SwitchboardError `needs_auth` when none is stored (the authorization must start
   *   again, such as after a sign-out or in another tab).
   */
  async codeVerifier(): Promise<string> {
    const verifier = (await this.#readFlow())?.codeVerifier;
    if (verifier === undefined) {
      throw new SwitchboardError(
        'needs_auth',
        `${this.where}: no PKCE code verifier is stored for this authorization; start it again.`,
      );
    }
    return verifier;
  }

  /** Keeps the SDK's discovery state in the flow store (it must survive the redirect). */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#updateFlow((flow) => ({ ...flow, discoveryState: state }));
  }

  /** The stored discovery state, if any. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#readFlow())?.discoveryState;
  }

  /**
   * Forgets stored credentials the authorization server rejected: `tokens` (every issuer's),
   * `client` (every issuer's stored registration; pre-registered clients stay), `verifier`,
   * `discovery`, or `all` of them (and the pending `state`). Subscribers are notified when
   * tokens go.
   */
  async invalidateCredentials(scope: OAuthCredentialScope): Promise<void> {
    switch (scope) {
      case 'all':
        await this.#updateCredentials(() => undefined);
        await this.#updateFlow(() => undefined);
        this.#changes.notify();
        return;
      case 'tokens':
        await this.#forget({ tokens: true, clients: false });
        this.#changes.notify();
        return;
      case 'client':
        await this.#forget({ tokens: false, clients: true });
        return;
      case 'verifier':
        await this.#updateFlow(({ codeVerifier: _verifier, ...flow }) => flow);
        return;
      case 'discovery':
        await this.#updateFlow(({ discoveryState: _discovery, ...flow }) => flow);
        return;
    }
  }

  /**
   * Forgets this server's tokens (all issuers), code verifier, state and discovery state; keeps
   * client registrations unless `forgetClient`. Notifies subscribers. Does not revoke tokens.
   */
  async signOut(options: { forgetClient?: boolean } = {}): Promise<void> {
    await this.#forget({ tokens: true, clients: options.forgetClient === true });
    await this.#updateFlow(() => undefined);
    this.#lastAuthorizationUrl = undefined;
    this.#changes.notify();
  }

  /** The account state of the latest tokens (see `OAuthAccountState`). */
  async accountState(): Promise<OAuthAccountState> {
    const entry = latestEntry(await this.#readCredentials());
    const saved = entry?.tokens;
    if (entry === undefined || saved === undefined) return { signedIn: false };
    const usable =
      saved.tokens.refresh_token !== undefined ||
      saved.expiresAt === undefined ||
      saved.expiresAt > this.#now();
    return {
      signedIn: usable,
      ...(entry.issuer === '' ? {} : { issuer: entry.issuer }),
      ...(saved.tokens.scope === undefined ? {} : { scope: saved.tokens.scope }),
      ...(saved.expiresAt === undefined ? {} : { expiresAt: saved.expiresAt }),
    };
  }

  /**
   * Calls `listener` after tokens are saved, invalidated or signed out here or (through the
   * change channel) in another context. Returns unsubscribe (idempotent).
   */
  subscribe(listener: () => void): () => void {
    return this.#changes.subscribe(listener);
  }

  /** See `InteractiveOAuthProvider.coordinateTokenRequests`. */
  coordinateTokenRequests(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
    return coordinateTokenRequests(fetch, {
      lock: this.#lock,
      lockName: `switchboard-oauth-refresh ${this.#key}`,
      readCredentials: async () => await this.#readCredentials(),
      saveTokens: async (issuer, tokens, replacing) =>
        await this.#storeTokens(tokens, issuer, replacing),
      answered: (accessToken) => {
        this.#coordinatedAccessTokens.add(accessToken);
      },
      now: this.#now,
    });
  }

  /** `"[ClassName OAuth for <origin><path>]"`: no secret. */
  toString(): string {
    return `[${this.constructor.name} ${this.where}]`;
  }

  /** `{ serverUrl, redirectUrl }`: no secret. */
  toJSON(): { serverUrl: string; redirectUrl: string } {
    return { serverUrl: this.#key, redirectUrl: this.#redirectUrl };
  }

  /** What `util.inspect` shows in Node: {@link toString}. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }

  /** Prefix of error messages: `OAuth for <origin><path>`. */
  protected get where(): string {
    return describeOAuthServer(this.#key);
  }

  /** The `state` this provider issued for the pending authorization, if any. */
  protected async issuedState(): Promise<string | undefined> {
    return (await this.#readFlow())?.state;
  }

  /** Forgets the issued `state` once an answer used it (one use), when it is still `state`. */
  protected async consumeState(state: string | undefined): Promise<void> {
    await this.#updateFlow((flow) => {
      if (flow.state !== state) return flow;
      const { state: _used, ...rest } = flow;
      return rest;
    });
  }

  async #forget(what: { tokens: boolean; clients: boolean }): Promise<void> {
    await this.#updateCredentials((credentials) => withoutEntries(credentials, what));
  }

  async #readCredentials(): Promise<OAuthServerCredentials | undefined> {
    return await this.#credentials.read(this.#key);
  }

  async #updateCredentials(
    change: (current: OAuthServerCredentials | undefined) => OAuthServerCredentials | undefined,
  ): Promise<void> {
    await this.#credentials.update(this.#key, change);
  }

  async #readFlow(): Promise<OAuthFlowState | undefined> {
    return await this.#flow.read(this.#key);
  }

  /** Updates the flow record; an empty record is deleted. */
  async #updateFlow(
    change: (current: OAuthFlowState) => OAuthFlowState | undefined,
  ): Promise<void> {
    await this.#flow.update(this.#key, (current) => {
      const next = change(current ?? {});
      return next === undefined || Object.keys(next).length === 0 ? undefined : next;
    });
  }
}

/** Whether `candidate` is the URL `expected` (compared as parsed `href`s). */
function sameUrl(candidate: unknown, expected: string): boolean {
  if (typeof candidate !== 'string') return false;
  try {
    return new URL(candidate).href === new URL(expected).href;
  } catch {
    return candidate === expected;
  }
}

/** 32 random bytes, base64url. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
