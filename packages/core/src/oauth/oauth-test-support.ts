/**
 * Test double for the OAuth provider tests: an MCP server's protected resource metadata and an
 * authorization server (RFC 8414 metadata, dynamic registration, authorization endpoint, token
 * endpoint with PKCE and refresh-token rotation), all answered by one `fetch` function — no
 * network. Not part of the public API.
 */
import { createHash } from 'node:crypto';

/** Options of {@link fakeAuthorizationServer}. */
export interface FakeAuthorizationServerOptions {
  /** The MCP server URL (the protected resource). Default `http://mcp.localhost/mcp`. */
  serverUrl?: string;
  /** The issuer. Default `http://as.localhost`. */
  issuer?: string;
  /** Advertise `client_id_metadata_document_supported`. Default false. */
  clientIdMetadataDocuments?: boolean;
  /** Access token lifetime, in s. Default 3600. */
  expiresIn?: number;
  /** Rotate refresh tokens on use (the old one becomes invalid). Default true. */
  rotateRefreshTokens?: boolean;
}

/** A request the fake server saw. */
export interface FakeRequest {
  method: string;
  url: string;
  /** Form parameters of a POST with a form body. */
  form?: URLSearchParams;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string | undefined;
}

/** See the file comment. */
export function fakeAuthorizationServer(options: FakeAuthorizationServerOptions = {}) {
  const serverUrl = options.serverUrl ?? 'http://mcp.localhost/mcp';
  const issuer = options.issuer ?? 'http://as.localhost';
  const rotate = options.rotateRefreshTokens ?? true;
  const requests: FakeRequest[] = [];
  const codes = new Map<string, IssuedCode>();
  const refreshTokens = new Set<string>();
  const registered: { client_id: string; redirect_uris: string[] }[] = [];
  let counter = 0;

  const issueTokens = (scope: string | undefined) => {
    counter += 1;
    const refreshToken = `refresh-token-secret-${counter}`;
    refreshTokens.add(refreshToken);
    return {
      access_token: `access-token-secret-${counter}`,
      token_type: 'Bearer',
      expires_in: options.expiresIn ?? 3600,
      refresh_token: refreshToken,
      ...(scope === undefined ? {} : { scope }),
    };
  };

  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    ...(options.clientIdMetadataDocuments === true
      ? { client_id_metadata_document_supported: true }
      : {}),
  };

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (
      init?.method ?? (input instanceof Request ? input.method : 'GET')
    ).toUpperCase();
    const body = init?.body;
    const form =
      body instanceof URLSearchParams
        ? new URLSearchParams(body)
        : typeof body === 'string' && !body.startsWith('{')
          ? new URLSearchParams(body)
          : undefined;
    requests.push({ method, url: url.href, ...(form === undefined ? {} : { form }) });
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      return Response.json({ resource: serverUrl, authorization_servers: [issuer] });
    }
    if (url.pathname.startsWith('/.well-known/oauth-authorization-server')) {
      return Response.json(metadata);
    }
    if (url.origin !== new URL(issuer).origin) return new Response('not found', { status: 404 });
    if (url.pathname === '/register' && method === 'POST') {
      const requested = JSON.parse(String(body)) as { redirect_uris: string[] };
      counter += 1;
      const client = { ...requested, client_id: `client-${counter}` };
      registered.push(client);
      return Response.json(client, { status: 201 });
    }
    if (url.pathname === '/token' && method === 'POST' && form !== undefined) {
      const grant = form.get('grant_type');
      if (grant === 'authorization_code') {
        const code = form.get('code') ?? '';
        const issued = codes.get(code);
        codes.delete(code);
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          issued === undefined ||
          issued.challenge !== challenge ||
          issued.clientId !== form.get('client_id') ||
          issued.redirectUri !== form.get('redirect_uri')
        ) {
          return Response.json({ error: 'invalid_grant' }, { status: 400 });
        }
        return Response.json(issueTokens(issued.scope));
      }
      if (grant === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        if (!refreshTokens.has(token)) {
          return Response.json({ error: 'invalid_grant' }, { status: 400 });
        }
        if (rotate) refreshTokens.delete(token);
        const tokens = issueTokens(undefined);
        if (!rotate) {
          refreshTokens.delete(tokens.refresh_token);
          return Response.json({ ...tokens, refresh_token: undefined });
        }
        return Response.json(tokens);
      }
      return Response.json({ error: 'unsupported_grant_type' }, { status: 400 });
    }
    return new Response('not found', { status: 404 });
  };

  /**
   * The user approves the authorization request at `authorizationUrl`: returns the redirect
   * URI's query (`code`, `state`, `iss`), as the callback would receive it.
   */
  const approve = (authorizationUrl: URL | string): URLSearchParams => {
    const url = new URL(authorizationUrl);
    counter += 1;
    const code = `authorization-code-secret-${counter}`;
    codes.set(code, {
      clientId: url.searchParams.get('client_id') ?? '',
      redirectUri: url.searchParams.get('redirect_uri') ?? '',
      challenge: url.searchParams.get('code_challenge') ?? '',
      scope: url.searchParams.get('scope') ?? undefined,
    });
    const query = new URLSearchParams({ code, iss: issuer });
    const state = url.searchParams.get('state');
    if (state !== null) query.set('state', state);
    return query;
  };

  /** The user denies: the error answer (RFC 6749 §4.1.2.1). */
  const deny = (authorizationUrl: URL | string): URLSearchParams => {
    const url = new URL(authorizationUrl);
    return new URLSearchParams({
      error: 'access_denied',
      error_description: 'The user said no',
      state: url.searchParams.get('state') ?? '',
      iss: issuer,
    });
  };

  const tokenRequests = (grant: string) =>
    requests.filter((request) => request.form?.get('grant_type') === grant);

  return { serverUrl, issuer, fetch, approve, deny, requests, registered, tokenRequests };
}

/** The secrets the fake server issues all contain this marker. */
export const SECRET_MARKER = '-secret-';
