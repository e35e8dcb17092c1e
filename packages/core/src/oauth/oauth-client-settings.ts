import { validateClientMetadataUrl, type OAuthClientMetadata } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * Client credentials issued out of band by an authorization server (the first registration
 * option of MCP authorization 2025-11-25, "Client Registration Approaches").
 */
export interface PreRegisteredClient {
  /** The client identifier (RFC 6749 §2.2). */
  client_id: string;
  /**
   * The client secret of a confidential client (RFC 6749 §2.3.1). Kept in memory only: it is
   * never written to storage by the providers.
   */
  client_secret?: string;
}

/**
 * Who the OAuth client is and which MCP server it authorizes for: the options the browser and
 * Node providers share.
 */
export interface OAuthClientSettings {
  /**
   * The MCP server URL (the protected resource, RFC 8707 / RFC 9728). Credentials are stored
   * under it (its `href` without the fragment), then per authorization server `issuer`.
   */
  serverUrl: string | URL;
  /**
   * The redirect URI (RFC 6749 §3.1.2) the authorization server sends the user back to: the
   * app's callback page in the browser, the loopback listener in Node (set by the provider).
   */
  redirectUrl: string | URL;
  /**
   * Overrides of the client metadata (RFC 7591 §2) sent with dynamic client registration.
   * Defaults: `client_name` `'Switchboard'`, `grant_types` `['authorization_code',
   * 'refresh_token']`, `response_types` `['code']`, `token_endpoint_auth_method` `'none'` (a
   * public client using PKCE, RFC 7636). `redirect_uris` is always `[redirectUrl]`.
   */
  clientMetadata?: Partial<Omit<OAuthClientMetadata, 'redirect_uris'>>;
  /**
   * The URL of this client's client ID metadata document (an `https:` URL with a path; MCP
   * authorization 2025-11-25, "Client ID Metadata Documents"). Used as the `client_id` when the
   * authorization server advertises `client_id_metadata_document_supported`; otherwise the SDK
   * falls back to dynamic registration.
   *
   * @throws (at construction) SwitchboardError `invalid_input` when it is not such a URL.
   */
  clientMetadataUrl?: string;
  /**
   * Pre-registered client credentials, tried before the client ID metadata document and dynamic
   * registration: one client for every authorization server, or a record from `issuer` (RFC 8414
   * `issuer`, a trailing `/` ignored) to its client.
   */
  preRegistered?: PreRegisteredClient | Readonly<Record<string, PreRegisteredClient>>;
  /**
   * The scope (space-separated, RFC 6749 §3.3) to ask for when neither the server's
   * `WWW-Authenticate` challenge nor its protected resource metadata names one (the SDK's scope
   * selection uses it last). Sent as `clientMetadata.scope`.
   */
  scope?: string;
}

/** The server URL as a storage key: its `href` without the fragment. */
export function serverKey(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return url.href;
}

/** An issuer without one trailing `/`, for comparisons (the SDK tolerates the same). */
export function issuerKey(issuer: string): string {
  return issuer.endsWith('/') ? issuer.slice(0, -1) : issuer;
}

/**
 * Checks the settings and returns the client metadata to register with.
 *
 * @throws SwitchboardError `invalid_input` for a `clientMetadataUrl` that is not `https:` with a
 *   path, or a `serverUrl` / `redirectUrl` that is not a URL.
 */
export function buildClientMetadata(settings: OAuthClientSettings): OAuthClientMetadata {
  for (const [name, value] of [
    ['serverUrl', settings.serverUrl],
    ['redirectUrl', settings.redirectUrl],
  ] as const) {
    if (!URL.canParse(String(value))) {
      throw new SwitchboardError('invalid_input', `The OAuth ${name} is not a valid URL.`);
    }
  }
  try {
    validateClientMetadataUrl(settings.clientMetadataUrl);
  } catch (error) {
    throw new SwitchboardError(
      'invalid_input',
      'The OAuth clientMetadataUrl must be an https: URL with a path (a client ID metadata document).',
      { cause: error },
    );
  }
  return {
    client_name: 'Switchboard',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(settings.scope === undefined ? {} : { scope: settings.scope }),
    ...settings.clientMetadata,
    redirect_uris: [String(settings.redirectUrl)],
  };
}

/** The pre-registered client for `issuer` (any issuer for a single client), if any. */
export function preRegisteredClientFor(
  preRegistered: OAuthClientSettings['preRegistered'],
  issuer: string | undefined,
): PreRegisteredClient | undefined {
  if (preRegistered === undefined) return undefined;
  if (typeof preRegistered.client_id === 'string') return preRegistered as PreRegisteredClient;
  if (issuer === undefined) return undefined;
  const wanted = issuerKey(issuer);
  for (const [key, client] of Object.entries(
    preRegistered as Record<string, PreRegisteredClient>,
  )) {
    if (issuerKey(key) === wanted) return client;
  }
  return undefined;
}
