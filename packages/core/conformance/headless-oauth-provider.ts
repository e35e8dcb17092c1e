/**
 * An in-memory `OAuthClientProvider` for the conformance client: the "user" is this process.
 * `redirectToAuthorization` does nothing (the layer reports the URL in its `needs_auth`
 * error); {@link authorizeHeadlessly} then visits that URL the way a browser would, reads the
 * code from the redirect (the harness's mock authorization server answers `/authorize` with an
 * immediate 302 to the redirect URI) and checks `state` before the layer finishes.
 *
 * Registration: pre-registered credentials from `MCP_CONFORMANCE_CONTEXT` (`client_id`,
 * `client_secret`) when given; otherwise the SDK uses the client ID metadata document URL when
 * the authorization server supports it, else dynamic registration.
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** The redirect URI the harness expects (it never listens there). */
const REDIRECT_URL = 'http://localhost:3000/callback';
/** The client ID metadata document URL the harness's `auth/basic-cimd` expects. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** See the file comment. */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl = CLIENT_METADATA_URL;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #codeVerifier: string | undefined;
  #state: string | undefined;

  /** @param preRegistered `client_id` (and `client_secret`) issued out of band, if any. */
  constructor(preRegistered?: { client_id: string; client_secret?: string }) {
    this.#client = preRegistered;
  }

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'switchboard-conformance',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  state(): string {
    this.#state = crypto.randomUUID();
    return this.#state;
  }

  /** The `state` sent with the last authorization request. */
  get expectedState(): string | undefined {
    return this.#state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client;
  }

  saveClientInformation(information: StoredOAuthClientInformation): void {
    this.#client = information;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(): void {
    // Nothing: `authorizeHeadlessly` visits the URL that the `needs_auth` error carries.
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw new Error('No PKCE code verifier was saved.');
    return this.#codeVerifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.#codeVerifier = undefined;
    if (scope === 'all' || scope === 'client') this.#client = undefined;
  }
}

/**
 * Visits `authorizationUrl` without following the redirect and returns the callback's query
 * (`code`, `state`, `iss`) after checking `state` against the provider's.
 *
 * @throws Error when the answer is not a redirect, carries an OAuth `error`, or `state` differs.
 */
export async function authorizeHeadlessly(
  provider: HeadlessOAuthProvider,
  authorizationUrl: string,
): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (location === null) {
    throw new Error(`The authorization endpoint answered ${response.status} without a redirect.`);
  }
  const callback = new URL(location, authorizationUrl).searchParams;
  const error = callback.get('error');
  if (error !== null) throw new Error(`The authorization was refused: ${error}`);
  if (callback.get('state') !== provider.expectedState) {
    throw new Error('The authorization response carried another state than the request.');
  }
  return callback;
}
