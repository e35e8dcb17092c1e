import { issuerKey } from './oauth-client-settings.ts';
import type { OAuthIssuerCredentials, OAuthServerCredentials } from './oauth-stores.ts';

/**
 * Pure edits of one MCP server's stored credentials (`OAuthServerCredentials`: an entry per
 * authorization server issuer, each with its client registration and tokens).
 */

/** The entry of `issuer` (a trailing `/` ignored), if any. */
export function findEntry(
  credentials: OAuthServerCredentials | undefined,
  issuer: string,
): OAuthIssuerCredentials | undefined {
  const wanted = issuerKey(issuer);
  return credentials?.issuers.find((entry) => issuerKey(entry.issuer) === wanted);
}

/** The entry of the latest tokens, else the only entry. */
export function latestEntry(
  credentials: OAuthServerCredentials | undefined,
): OAuthIssuerCredentials | undefined {
  if (credentials === undefined) return undefined;
  if (credentials.latestIssuer !== undefined) {
    return findEntry(credentials, credentials.latestIssuer);
  }
  return credentials.issuers.length === 1 ? credentials.issuers[0] : undefined;
}

/** `credentials` with the entry of `issuer` replaced by `change(entry)` (created if missing). */
export function upsertEntry(
  credentials: OAuthServerCredentials | undefined,
  issuer: string,
  change: (entry: OAuthIssuerCredentials) => OAuthIssuerCredentials,
): OAuthServerCredentials {
  const issuers = [...(credentials?.issuers ?? [])];
  const wanted = issuerKey(issuer);
  const index = issuers.findIndex((entry) => issuerKey(entry.issuer) === wanted);
  const entry = index === -1 ? { issuer } : (issuers[index] as OAuthIssuerCredentials);
  const next = change({ ...entry, issuer });
  if (index === -1) issuers.push(next);
  else issuers[index] = next;
  return credentials?.latestIssuer === undefined
    ? { issuers }
    : { issuers, latestIssuer: credentials.latestIssuer };
}

/**
 * `credentials` without the tokens (and, when `clients`, the client registrations) of every
 * issuer; `undefined` when nothing is left. Forgetting tokens also forgets which issuer issued
 * the latest ones.
 */
export function withoutEntries(
  credentials: OAuthServerCredentials | undefined,
  what: { tokens: boolean; clients: boolean },
): OAuthServerCredentials | undefined {
  if (credentials === undefined) return undefined;
  const issuers = credentials.issuers
    .map((entry): OAuthIssuerCredentials => {
      const next = { ...entry };
      if (what.tokens) delete next.tokens;
      if (what.clients) delete next.client;
      return next;
    })
    .filter((entry) => entry.tokens !== undefined || entry.client !== undefined);
  if (issuers.length === 0) return undefined;
  const { latestIssuer } = credentials;
  return what.tokens || latestIssuer === undefined ? { issuers } : { issuers, latestIssuer };
}
