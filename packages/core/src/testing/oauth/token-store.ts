import { randomBytes, randomUUID } from 'node:crypto';
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** How long an authorization code can be redeemed, in ms (RFC 6749 §4.1.2 advises ≤ 10 min). */
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60 * 1000;

/** What an authorization code stands for until it is redeemed. */
export interface AuthorizationCodeGrant {
  clientId: string;
  scopes: string[];
  /** The PKCE S256 challenge of the authorization request. */
  codeChallenge: string;
  redirectUri: string;
  /** RFC 8707 resource of the authorization request, if any. */
  resource?: URL;
}

/** A valid access token, as the resource server sees it. */
export interface VerifiedAccessToken {
  /** The client the token was issued to. */
  clientId: string;
  /** Granted scopes, e.g. `['mcp:tools']` (`offline_access` included when it was requested). */
  scopes: string[];
  /** Expiry in seconds since the Unix epoch. */
  expiresAt: number;
  /** The RFC 8707 resource the token is bound to, when one was requested. */
  resource?: URL;
}

/** The tokens of one grant share a family: reuse detection and revocation act on all of them. */
interface Grant {
  familyId: string;
  clientId: string;
  scopes: string[];
  resource?: URL;
}

interface AccessTokenRecord extends Grant {
  expiresAtMs: number;
}

interface RefreshTokenRecord extends Grant {
  /** Set once the token was exchanged under rotation; presenting it again is a replay. */
  rotated: boolean;
}

interface CodeRecord extends AuthorizationCodeGrant {
  expiresAtMs: number;
}

/** Options of {@link TokenStore}. */
export interface TokenStoreOptions {
  accessTokenTtlMs: number;
  rotateRefreshTokens: boolean;
}

/** An opaque, unguessable token value (256 random bits, base64url). */
function opaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

function sameResource(left: URL | undefined, right: URL | undefined): boolean {
  return left?.href === right?.href;
}

/**
 * In-memory authorization codes, access tokens and refresh tokens of the test authorization
 * server. Codes are single-use; refresh tokens are always issued alongside access tokens and,
 * with rotation on, replaced on every use. Errors are the SDK's OAuth errors, so the token
 * endpoint answers with the right `error` code.
 */
export class TokenStore {
  private readonly codes = new Map<string, CodeRecord>();
  private readonly accessTokens = new Map<string, AccessTokenRecord>();
  private readonly refreshTokens = new Map<string, RefreshTokenRecord>();

  constructor(private readonly options: TokenStoreOptions) {}

  /** Mints a single-use authorization code for `grant`. */
  issueCode(grant: AuthorizationCodeGrant): string {
    this.pruneExpired();
    const code = randomUUID();
    this.codes.set(code, { ...grant, expiresAtMs: Date.now() + AUTHORIZATION_CODE_TTL_MS });
    return code;
  }

  /**
   * The code's grant without consuming it (the SDK reads the PKCE challenge first).
   * @throws InvalidGrantError for an unknown, expired or other client's code.
   */
  peekCode(code: string, clientId: string): AuthorizationCodeGrant {
    const record = this.codes.get(code);
    if (record === undefined || record.expiresAtMs <= Date.now()) {
      throw new InvalidGrantError('The authorization code is invalid, expired or already used.');
    }
    if (record.clientId !== clientId) {
      throw new InvalidGrantError('The authorization code was issued to another client.');
    }
    return record;
  }

  /**
   * Redeems a code: checks it like {@link peekCode} plus the redirect URI and the resource, then
   * deletes it and issues the first tokens of a new grant. The token request's `resource` wins
   * when the authorization request had none; a different one is `invalid_target`.
   */
  redeemCode(
    code: string,
    clientId: string,
    redirectUri: string | undefined,
    resource: URL | undefined,
  ): OAuthTokens {
    const grant = this.peekCode(code, clientId);
    if (redirectUri !== undefined && redirectUri !== grant.redirectUri) {
      throw new InvalidGrantError('redirect_uri does not match the authorization request.');
    }
    if (resource !== undefined && grant.resource !== undefined) {
      if (!sameResource(resource, grant.resource)) {
        throw new InvalidTargetError('resource does not match the authorization request.');
      }
    }
    this.codes.delete(code);
    const bound = resource ?? grant.resource;
    return this.issueTokens({
      familyId: randomUUID(),
      clientId,
      scopes: grant.scopes,
      ...(bound === undefined ? {} : { resource: bound }),
    });
  }

  /**
   * Exchanges a refresh token. Narrower `scopes` are allowed, wider ones are `invalid_scope`; a
   * `resource` other than the grant's is `invalid_target`. Under rotation the presented token is
   * retired and a new one returned; presenting a retired token again is treated as theft
   * (RFC 9700 §4.14.2): the whole grant is revoked and the answer is `invalid_grant`.
   */
  refresh(
    clientId: string,
    refreshToken: string,
    scopes: string[] | undefined,
    resource: URL | undefined,
  ): OAuthTokens {
    const record = this.refreshTokens.get(refreshToken);
    if (record === undefined) {
      throw new InvalidGrantError('The refresh token is invalid or revoked.');
    }
    if (record.clientId !== clientId) {
      throw new InvalidGrantError('The refresh token was issued to another client.');
    }
    if (record.rotated) {
      this.revokeFamily(record.familyId);
      throw new InvalidGrantError('The refresh token was already used; the grant is revoked.');
    }
    const requested = scopes?.filter((scope) => scope !== '') ?? [];
    const unknown = requested.filter((scope) => !record.scopes.includes(scope));
    if (unknown.length > 0) {
      throw new InvalidScopeError(`Not granted originally: ${unknown.join(' ')}.`);
    }
    if (resource !== undefined && record.resource !== undefined) {
      if (!sameResource(resource, record.resource)) {
        throw new InvalidTargetError('resource does not match the original grant.');
      }
    }
    const bound = record.resource ?? resource;
    const grant: Grant = {
      familyId: record.familyId,
      clientId,
      scopes: requested.length > 0 ? requested : record.scopes,
      ...(bound === undefined ? {} : { resource: bound }),
    };
    if (!this.options.rotateRefreshTokens) {
      return { ...this.issueAccessToken(grant), refresh_token: refreshToken };
    }
    record.rotated = true;
    return this.issueTokens(grant);
  }

  /** The token's grant while it is valid; undefined when unknown, revoked or expired. */
  verify(accessToken: string): VerifiedAccessToken | undefined {
    const record = this.accessTokens.get(accessToken);
    if (record === undefined) return undefined;
    if (record.expiresAtMs <= Date.now()) {
      this.accessTokens.delete(accessToken);
      return undefined;
    }
    const info: VerifiedAccessToken = {
      clientId: record.clientId,
      scopes: [...record.scopes],
      expiresAt: Math.floor(record.expiresAtMs / 1000),
    };
    if (record.resource !== undefined) info.resource = new URL(record.resource.href);
    return info;
  }

  /**
   * RFC 7009 revocation of an access or refresh token of `clientId`. Revoking a refresh token
   * revokes its whole grant (RFC 7009 §2.1); unknown tokens are ignored.
   */
  revoke(token: string, clientId: string): void {
    const refresh = this.refreshTokens.get(token);
    if (refresh?.clientId === clientId) {
      this.revokeFamily(refresh.familyId);
      return;
    }
    if (this.accessTokens.get(token)?.clientId === clientId) this.accessTokens.delete(token);
  }

  /**
   * Makes every issued access token (only those of `clientId`, when given) expired at once, as
   * if its lifetime had run out; refresh tokens stay valid. Returns how many were expired.
   */
  expireAccessTokens(clientId?: string): number {
    const now = Date.now();
    let expired = 0;
    for (const record of this.accessTokens.values()) {
      if (clientId !== undefined && record.clientId !== clientId) continue;
      if (record.expiresAtMs <= now) continue;
      record.expiresAtMs = now;
      expired += 1;
    }
    return expired;
  }

  /** Forgets every access and refresh token (authorization codes stay redeemable). */
  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  private issueTokens(grant: Grant): OAuthTokens {
    const refreshToken = opaqueToken();
    this.refreshTokens.set(refreshToken, { ...grant, rotated: false });
    return { ...this.issueAccessToken(grant), refresh_token: refreshToken };
  }

  private issueAccessToken(grant: Grant): OAuthTokens {
    this.pruneExpired();
    const accessToken = opaqueToken();
    const ttlMs = this.options.accessTokenTtlMs;
    this.accessTokens.set(accessToken, { ...grant, expiresAtMs: Date.now() + ttlMs });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      // Whole seconds on the wire; never 0, which some clients read as "no expiry".
      expires_in: Math.max(1, Math.ceil(ttlMs / 1000)),
      scope: grant.scopes.join(' '),
    };
  }

  private revokeFamily(familyId: string): void {
    for (const [token, record] of this.accessTokens) {
      if (record.familyId === familyId) this.accessTokens.delete(token);
    }
    for (const [token, record] of this.refreshTokens) {
      if (record.familyId === familyId) this.refreshTokens.delete(token);
    }
  }

  /** Drops expired codes and access tokens so a long-running playground does not grow forever. */
  private pruneExpired(): void {
    const now = Date.now();
    for (const [code, record] of this.codes) {
      if (record.expiresAtMs <= now) this.codes.delete(code);
    }
    for (const [token, record] of this.accessTokens) {
      if (record.expiresAtMs <= now) this.accessTokens.delete(token);
    }
  }
}
