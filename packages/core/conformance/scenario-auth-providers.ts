/**
 * The `authProvider` the conformance client hands to `mcpServer()` for each auth scenario.
 *
 * The authorization-code scenarios use {@link HeadlessOAuthProvider}. The extension scenarios
 * (unscored in both requirement sets) each get the MCP SDK's own provider for their grant, fed
 * from the scenario data the harness passes in `MCP_CONFORMANCE_CONTEXT`, so the OAuth protocol
 * (discovery, the token request, client authentication, DPoP proofs and nonces) stays the SDK's
 * code, driven through our transport wiring:
 *
 * | scenario                                 | provider                                                      |
 * | ---------------------------------------- | ------------------------------------------------------------- |
 * | `auth/client-credentials-basic`          | `ClientCredentialsProvider` (client_secret_basic)             |
 * | `auth/client-credentials-jwt`            | `PrivateKeyJwtProvider` (private_key_jwt)                     |
 * | `auth/enterprise-managed-authorization`  | `CrossAppAccessProvider` + `requestJwtAuthorizationGrant`     |
 * | `auth/dpop`, `auth/dpop-nonce`           | {@link HeadlessOAuthProvider} with `dpop()` → `DpopSession`   |
 * | `auth/wif-jwt-bearer`                    | {@link WorkloadIdentityProvider} (SDK `prepareTokenRequest`)  |
 *
 * This mirrors the harness's reference client (`examples/clients/typescript/everything-client.ts`
 * in modelcontextprotocol/conformance), except for DPoP: that client hand-rolls the flow because
 * the v1 SDK had no DPoP hook; SDK v2 has `OAuthClientProvider.dpop()`.
 *
 * The client-credentials, cross-app and workload providers get no `expectedIssuer`: the harness
 * does not say which authorization server issued the credentials (its context carries no
 * `issuer` for these scenarios), so the SDK's deprecated default applies (the credentials go to
 * the authorization server the MCP server advertises, with a console warning).
 */
import {
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  DpopSession,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { HeadlessOAuthProvider } from './headless-oauth-provider.ts';

/** RFC 7523 §2.1 grant type (the SDK exports no constant for it). */
const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The provider for `scenario`: an SDK provider for a grant other than the authorization code,
 * else a {@link HeadlessOAuthProvider} (with DPoP for the DPoP scenarios), which every other
 * scenario gets too (only servers that answer 401 make it do anything).
 *
 * @param context The parsed `MCP_CONFORMANCE_CONTEXT` (`{}` when the harness gave none).
 * @throws Error when the scenario's context lacks a field its provider needs.
 */
export function authProviderFor(
  scenario: string,
  context: Record<string, unknown>,
): OAuthClientProvider {
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return new ClientCredentialsProvider({
        clientId: field(context, 'client_id'),
        clientSecret: field(context, 'client_secret'),
        clientName: 'switchboard-conformance',
      });
    case 'auth/client-credentials-jwt':
      return new PrivateKeyJwtProvider({
        clientId: field(context, 'client_id'),
        privateKey: field(context, 'private_key_pem'),
        algorithm: optionalField(context, 'signing_algorithm') ?? 'ES256',
        clientName: 'switchboard-conformance',
      });
    case 'auth/enterprise-managed-authorization': {
      // SEP-990: the SDK exchanges the ID-JAG for an access token (RFC 7523 jwt-bearer grant,
      // client_secret_basic); the callback gets the ID-JAG from the enterprise IdP (RFC 8693
      // token exchange of the user's ID token), for the authorization server and resource the
      // SDK discovered.
      const idToken = field(context, 'idp_id_token');
      const idpClientId = field(context, 'idp_client_id');
      const idpTokenEndpoint = field(context, 'idp_token_endpoint');
      return new CrossAppAccessProvider({
        clientId: field(context, 'client_id'),
        clientSecret: field(context, 'client_secret'),
        clientName: 'switchboard-conformance',
        assertion: async ({ authorizationServerUrl, resourceUrl, scope, fetchFn }) => {
          const grant = await requestJwtAuthorizationGrant({
            tokenEndpoint: idpTokenEndpoint,
            audience: authorizationServerUrl,
            resource: resourceUrl,
            idToken,
            clientId: idpClientId,
            ...(scope === undefined ? {} : { scope }),
            fetchFn,
          });
          return grant.jwtAuthGrant;
        },
      });
    }
    case 'auth/wif-jwt-bearer':
      return new WorkloadIdentityProvider(field(context, 'client_id'), field(context, 'valid_jwt'));
    case 'auth/dpop':
    case 'auth/dpop-nonce':
      return new DpopHeadlessOAuthProvider();
    default:
      return new HeadlessOAuthProvider(preRegisteredClient(context));
  }
}

/** `client_id` (and `client_secret`) from the context, for `auth/pre-registration`. */
function preRegisteredClient(
  context: Record<string, unknown>,
): { client_id: string; client_secret?: string } | undefined {
  const clientId = optionalField(context, 'client_id');
  if (clientId === undefined) return undefined;
  const clientSecret = optionalField(context, 'client_secret');
  return {
    client_id: clientId,
    ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
  };
}

/**
 * {@link HeadlessOAuthProvider} that asks for DPoP-bound tokens (SEP-1932 / RFC 9449): with
 * `dpop()` implemented the SDK signs a proof into the token request (retrying on the
 * authorization server's `use_dpop_nonce`), and its transport wraps our session fetch so every
 * MCP request carries `Authorization: DPoP` and a fresh proof (retrying on the resource server's
 * `use_dpop_nonce`). One session (key pair and nonces) for the provider's life, as the SDK asks.
 */
class DpopHeadlessOAuthProvider extends HeadlessOAuthProvider {
  readonly #session = DpopSession.create();

  dpop(): Promise<DpopSession> {
    return this.#session;
  }
}

/**
 * Workload identity federation (SEP-1933): the RFC 7523 JWT-bearer grant with a workload JWT
 * that the platform issued (`valid_jwt` in the harness's context), as a public client
 * (`token_endpoint_auth_method: none`).
 *
 * SDK 2.4.0 ships no provider for this grant (`CrossAppAccessProvider` sends the same grant but
 * requires a client secret and client_secret_basic, and is meant for an ID-JAG), so this one
 * only fills in the SDK's `prepareTokenRequest` hook with the grant's parameters, as the
 * reference client's `WifJwtBearerProvider` does; the SDK's `auth()` still makes the request.
 *
 * Once the authorization server rejected the assertion, it is not sent again (the scenario
 * warns on a retry, and on a fall-back to another grant): the next `prepareTokenRequest` before
 * a `saveTokens` throws, which `auth()` surfaces instead of retrying.
 */
class WorkloadIdentityProvider implements OAuthClientProvider {
  readonly #assertion: string;
  #client: StoredOAuthClientInformation;
  #tokens: StoredOAuthTokens | undefined;
  /** A token request was prepared and no tokens were saved since: the server refused it. */
  #awaitingTokens = false;

  /** @param assertion The workload JWT, its audience the authorization server. */
  constructor(clientId: string, assertion: string) {
    this.#client = { client_id: clientId };
    this.#assertion = assertion;
  }

  /** No redirect: a non-interactive grant, so the SDK calls `prepareTokenRequest`. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'switchboard-conformance',
      redirect_uris: [],
      grant_types: [JWT_BEARER_GRANT_TYPE],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): StoredOAuthClientInformation {
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
    this.#awaitingTokens = false;
  }

  redirectToAuthorization(): void {
    throw new Error('The JWT-bearer grant has no authorization redirect.');
  }

  saveCodeVerifier(): void {
    // No PKCE: there is no authorization request.
  }

  codeVerifier(): string {
    throw new Error('The JWT-bearer grant has no PKCE code verifier.');
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    if (this.#awaitingTokens) {
      throw new Error(
        'The authorization server refused the workload assertion; it is not sent again.',
      );
    }
    this.#awaitingTokens = true;
    const params = new URLSearchParams({
      grant_type: JWT_BEARER_GRANT_TYPE,
      assertion: this.#assertion,
    });
    if (scope !== undefined && scope !== '') params.set('scope', scope);
    return params;
  }
}

function field(context: Record<string, unknown>, name: string): string {
  const value = optionalField(context, name);
  if (value === undefined) {
    throw new Error(`MCP_CONFORMANCE_CONTEXT has no string "${name}".`);
  }
  return value;
}

function optionalField(context: Record<string, unknown>, name: string): string | undefined {
  const value = context[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
