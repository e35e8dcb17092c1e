import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import {
  createOAuthMetadata,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import express from 'express';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import { logRequests, requestEntryOf } from './authorization-server-log.ts';
import type { AuthorizationServerRequest } from './authorization-server-log.ts';
import { CONSENT_PATH } from './consent-page.ts';
import type { TestOAuthProvider } from './test-oauth-provider.ts';

/** What {@link createAuthorizationServerApp} wires together. */
export interface AuthorizationServerAppSettings {
  provider: TestOAuthProvider;
  /** Issuer without a trailing slash, e.g. `http://127.0.0.1:3004`. */
  issuer: string;
  scopesSupported: string[];
  /** Receives one entry per request. */
  requests: AuthorizationServerRequest[];
}

/** `url` with the RFC 9207 `iss` parameter set (left alone when it does not parse). */
function withIssuer(url: string, issuer: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('iss', issuer);
  return parsed.href;
}

/**
 * Adds `iss` to every redirect of the authorization and consent endpoints: the codes, the
 * denials and the SDK's own error redirects (bad PKCE parameters, unknown scope) alike. Every
 * redirect goes through `res.location`, so this is the one place that needs to know.
 */
function addIssuerToRedirects(issuer: string): RequestHandler {
  return (_request, response, next) => {
    const location = response.location.bind(response);
    response.location = (url: string) => location(withIssuer(url, issuer));
    next();
  };
}

function consentRoute(provider: TestOAuthProvider): RequestHandler {
  return (request, response) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const requestId = typeof body['request_id'] === 'string' ? body['request_id'] : '';
    const decision = body['decision'];
    const pending = provider.pendingRequest(requestId);
    const entry = requestEntryOf(response);
    if (entry !== undefined && pending !== undefined) {
      entry.clientId = pending.clientId;
      if (pending.resource !== undefined) entry.resource = pending.resource.href;
    }
    response.set('cache-control', 'no-store');
    if (decision !== 'allow' && decision !== 'deny') {
      response.status(400).type('text').send('decision must be "allow" or "deny".');
      return;
    }
    const location = provider.decide(requestId, decision);
    if (location === undefined) {
      response
        .status(400)
        .type('text')
        .send('This sign-in request is unknown, expired or already answered. Start again.');
      return;
    }
    response.redirect(302, location);
  };
}

/** JSON for unknown routes, instead of Express's HTML page. */
const notFound: RequestHandler = (request, response) => {
  response.status(404).json({
    error: 'not_found',
    error_description: `No route for ${request.method} ${request.path}.`,
  });
};

/** Malformed bodies (and anything unexpected) as OAuth-style JSON, without stack traces. */
const errorHandler: ErrorRequestHandler = (error: unknown, _request, response, _next) => {
  const status =
    typeof error === 'object' && error !== null && 'status' in error
      ? Number((error as { status: unknown }).status)
      : 500;
  const clientError = Number.isInteger(status) && status >= 400 && status < 500;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.status(clientError ? status : 500).json({
    error: clientError ? 'invalid_request' : 'server_error',
    error_description: clientError ? 'The request could not be read.' : 'Internal server error.',
  });
};

/** RFC 8414 metadata: the SDK's, plus the RFC 9207 flag and an issuer without trailing slash. */
function authorizationServerMetadata(
  provider: TestOAuthProvider,
  issuer: string,
  scopesSupported: string[],
): OAuthMetadata {
  return {
    ...createOAuthMetadata({ provider, issuerUrl: new URL(issuer), scopesSupported }),
    // The SDK writes `issuer` as URL.href ("…:PORT/"); RFC 8414 issuers carry no trailing slash,
    // and the `iss` of every authorization response must be exactly this string.
    issuer,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
  };
}

/**
 * The express app of the test authorization server: request log, RFC 9207 `iss` on every
 * authorization response, our metadata (it overrides the SDK's, mounted later), the consent form
 * target, then the SDK's `mcpAuthRouter` with its rate limits off (tests make many requests),
 * and JSON answers for unknown routes and unreadable bodies.
 */
export function createAuthorizationServerApp(settings: AuthorizationServerAppSettings): Express {
  const { provider, issuer, scopesSupported } = settings;
  const app = express();
  app.disable('x-powered-by');
  app.use(logRequests(settings.requests));
  app.use(['/authorize', CONSENT_PATH], addIssuerToRedirects(issuer));
  app.use(
    '/.well-known/oauth-authorization-server',
    metadataHandler(authorizationServerMetadata(provider, issuer, scopesSupported)),
  );
  app.post(CONSENT_PATH, consentRoute(provider));
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(issuer),
      scopesSupported,
      resourceName: 'Switchboard test authorization server',
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
