import { randomUUID } from 'node:crypto';
import {
  AccessDeniedError,
  InvalidScopeError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Response } from 'express';
import { renderConsentPage } from './consent-page.ts';
import { AUTHORIZATION_CODE_TTL_MS } from './token-store.ts';
import type { TokenStore } from './token-store.ts';

/** The scope a client may always ask for in addition to the advertised ones. */
const OFFLINE_ACCESS = 'offline_access';

/** An authorization request waiting for the user's decision on the consent page. */
interface PendingConsent {
  client: OAuthClientInformationFull;
  params: AuthorizationParams;
  scopes: string[];
  expiresAtMs: number;
}

/** Settings of {@link TestOAuthProvider}. */
export interface TestOAuthProviderSettings {
  consent: 'page' | 'auto';
  scopesSupported: readonly string[];
  tokens: TokenStore;
}

/** Dynamic registration and pre-registered clients, in memory. */
class InMemoryClientsStore implements OAuthRegisteredClientsStore {
  private readonly clients = new Map<string, OAuthClientInformationFull>();

  getClient(clientId: string): OAuthClientInformationFull | undefined {
    return this.clients.get(clientId);
  }

  registerClient(client: OAuthClientInformationFull): OAuthClientInformationFull {
    this.clients.set(client.client_id, client);
    return client;
  }
}

/**
 * The `OAuthServerProvider` behind the SDK's `mcpAuthRouter`: the SDK validates the client, the
 * redirect URI and PKCE; this class decides scopes, asks for consent (or not) and delegates the
 * tokens to a {@link TokenStore}. Redirects are built without `iss`: the server adds it to every
 * authorization response in one place.
 */
export class TestOAuthProvider implements OAuthServerProvider {
  readonly clientsStore = new InMemoryClientsStore();
  private readonly pending = new Map<string, PendingConsent>();

  constructor(private readonly settings: TestOAuthProviderSettings) {}

  /** Adds a client known in advance (no dynamic registration needed). */
  addClient(client: OAuthClientInformationFull): void {
    this.clientsStore.registerClient(client);
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    response: Response,
  ): Promise<void> {
    const scopes = this.grantableScopes(params.scopes ?? []);
    if (this.settings.consent === 'auto') {
      response.redirect(302, this.approve(client, params, scopes));
      return;
    }
    this.prunePending();
    const requestId = randomUUID();
    this.pending.set(requestId, {
      client,
      params,
      scopes,
      expiresAtMs: Date.now() + AUTHORIZATION_CODE_TTL_MS,
    });
    const page = renderConsentPage({
      requestId,
      clientId: client.client_id,
      ...(client.client_name === undefined ? {} : { clientName: client.client_name }),
      scopes,
      redirectUri: params.redirectUri,
    });
    response.status(200).set(page.headers).type('html').send(page.html);
  }

  /** The client and resource of a pending consent, for the request log. */
  pendingRequest(requestId: string): { clientId: string; resource?: URL } | undefined {
    const pending = this.pending.get(requestId);
    if (pending === undefined) return undefined;
    const { resource } = pending.params;
    return resource === undefined
      ? { clientId: pending.client.client_id }
      : { clientId: pending.client.client_id, resource };
  }

  /**
   * Applies the user's decision on a consent page (each request id works once).
   * @returns The redirect URL (a code, or `error=access_denied`), or undefined for an unknown or
   *   expired request id.
   */
  decide(requestId: string, decision: 'allow' | 'deny'): string | undefined {
    const pending = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (pending === undefined || pending.expiresAtMs <= Date.now()) return undefined;
    if (decision === 'allow') return this.approve(pending.client, pending.params, pending.scopes);
    const error = new AccessDeniedError('The user denied the authorization request.');
    return authorizationResponse(pending.params, {
      error: error.errorCode,
      error_description: error.message,
    });
  }

  async challengeForAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
  ): Promise<string> {
    return this.settings.tokens.peekCode(authorizationCode, client.client_id).codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    // The SDK's token handler already checked the PKCE verifier against the stored challenge.
    return this.settings.tokens.redeemCode(
      authorizationCode,
      client.client_id,
      redirectUri,
      resource,
    );
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    return this.settings.tokens.refresh(client.client_id, refreshToken, scopes, resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = this.settings.tokens.verify(token);
    if (info === undefined) throw new InvalidTokenError('The access token is invalid or expired.');
    return { token, ...info };
  }

  async revokeToken(
    client: OAuthClientInformationFull,
    request: OAuthTokenRevocationRequest,
  ): Promise<void> {
    this.settings.tokens.revoke(request.token, client.client_id);
  }

  /**
   * The scopes to grant: the requested ones when all are advertised (or `offline_access`), the
   * first advertised scope when none was requested (least privilege).
   * @throws InvalidScopeError for a scope the server does not know (reported to the redirect URI).
   */
  private grantableScopes(requested: string[]): string[] {
    const scopes = [...new Set(requested.filter((scope) => scope !== ''))];
    const unknown = scopes.filter(
      (scope) => scope !== OFFLINE_ACCESS && !this.settings.scopesSupported.includes(scope),
    );
    if (unknown.length > 0) throw new InvalidScopeError(`Unknown scope: ${unknown.join(' ')}.`);
    if (scopes.length > 0) return scopes;
    const fallback = this.settings.scopesSupported[0];
    return fallback === undefined ? [] : [fallback];
  }

  /** Mints the code (bound to client, PKCE challenge, redirect URI and resource). */
  private approve(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    scopes: string[],
  ): string {
    const code = this.settings.tokens.issueCode({
      clientId: client.client_id,
      scopes,
      codeChallenge: params.codeChallenge,
      redirectUri: params.redirectUri,
      ...(params.resource === undefined ? {} : { resource: params.resource }),
    });
    return authorizationResponse(params, { code });
  }

  private prunePending(): void {
    const now = Date.now();
    for (const [requestId, pending] of this.pending) {
      if (pending.expiresAtMs <= now) this.pending.delete(requestId);
    }
  }
}

/** `redirectUri` with the response parameters and the request's `state` added to its query. */
function authorizationResponse(
  params: AuthorizationParams,
  values: Record<string, string>,
): string {
  const url = new URL(params.redirectUri);
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, value);
  if (params.state !== undefined) url.searchParams.set('state', params.state);
  return url.href;
}
