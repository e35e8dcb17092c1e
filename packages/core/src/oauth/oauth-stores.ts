import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * A small keyed store of one record type, the storage the OAuth providers are built on. Keys are
 * MCP server URLs (normalized `href`s). Implementations: `MemoryOAuthStore` (any runtime),
 * `IndexedDbOAuthCredentialStore` and `SessionStorageOAuthFlowStore` (browser),
 * `FileOAuthCredentialStore` (Node).
 *
 * `update` is a read-modify-write that must be atomic with respect to other `update`s on the
 * same store (an IndexedDB transaction, a serialized file write, a synchronous `sessionStorage`
 * change): `change` is synchronous and gets a copy it may modify; returning `undefined` deletes
 * the record.
 *
 * Failures reject with `SwitchboardError` `storage_error` (`history_error` is for history
 * stores only). Error messages never contain the stored values.
 */
export interface OAuthStore<Value> {
  /** The record for `key`, or `undefined`. */
  read(key: string): Value | undefined | Promise<Value | undefined>;
  /** Replaces the record for `key` with `change(current)`; resolves with what was written. */
  update(
    key: string,
    change: (current: Value | undefined) => Value | undefined,
  ): Value | undefined | Promise<Value | undefined>;
}

/** Tokens as a provider stored them. */
export interface SavedOAuthTokens {
  /** The token response (RFC 6749 §5.1), stamped with the `issuer` it came from. */
  tokens: StoredOAuthTokens;
  /** When they were saved, in ms since the epoch. */
  savedAt: number;
  /** When the access token expires, in ms since the epoch: `savedAt + expires_in * 1000`. */
  expiresAt?: number;
}

/** What a credential store holds for one MCP server and one authorization server. */
export interface OAuthIssuerCredentials {
  /** The authorization server's `issuer` (RFC 8414 §2), as the SDK resolved it. */
  issuer: string;
  /** The latest tokens from this issuer for this server. */
  tokens?: SavedOAuthTokens;
  /** The client registration at this issuer (dynamic registration or client ID metadata URL). */
  client?: StoredOAuthClientInformation;
}

/**
 * The persistent credential record of one MCP server (the store key): tokens and client
 * information per issuer (credentials are bound to the authorization server that issued them,
 * RFC 6749 §2.2), and which issuer saved tokens last (what the SDK's per-request, ctx-less
 * `tokens()` read returns).
 */
export interface OAuthServerCredentials {
  /** One entry per issuer. */
  issuers: OAuthIssuerCredentials[];
  /** The issuer of the most recently saved tokens. */
  latestIssuer?: string;
}

/**
 * The state of one authorization in progress for one MCP server (the store key). It must
 * survive the trip to the authorization server and back (the browser keeps it in
 * `sessionStorage`).
 */
export interface OAuthFlowState {
  /** The PKCE code verifier (RFC 7636 §4.1) of the pending authorization request. */
  codeVerifier?: string;
  /** The `state` this provider issued for the pending authorization request (RFC 6749 §10.12). */
  state?: string;
  /** The SDK's discovery result (RFC 9728 + RFC 8414), which binds the callback to its issuer. */
  discoveryState?: OAuthDiscoveryState;
}

/** The store of {@link OAuthServerCredentials}, keyed by MCP server URL. */
export type OAuthCredentialStore = OAuthStore<OAuthServerCredentials>;

/** The store of {@link OAuthFlowState}, keyed by MCP server URL. */
export type OAuthFlowStore = OAuthStore<OAuthFlowState>;
