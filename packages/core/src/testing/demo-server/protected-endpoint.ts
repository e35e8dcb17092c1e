import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VerifiedAccessToken } from '../oauth/test-authorization-server.ts';
import type { DemoServerState } from './demo-server-state.ts';
import { headerValue, sendJson } from './http-support.ts';
import { createModernEndpoint } from './modern-endpoint.ts';
import {
  ADMIN_SCOPE,
  RESET_DEMO_DATA_TOOL,
  TOOLS_SCOPE,
  calledToolNames,
  withAdminTools,
} from './protected-tools.ts';

/** Path of the OAuth-protected MCP endpoint. */
export const PROTECTED_PATH = '/protected/mcp';

/** RFC 9728 path-aware metadata location of {@link PROTECTED_PATH}. */
export const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${PROTECTED_PATH}`;

/** What the protected endpoint needs from the authorization server. */
export interface ProtectedEndpointOptions {
  /** The authorization server's issuer, listed in the resource metadata. */
  authorizationServerUrl: string;
  /** Resolves a bearer token to its grant, or undefined when invalid, expired or revoked. */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | undefined>;
}

/** `/protected/mcp`: the modern endpoint's tools (plus `reset_demo_data`) behind OAuth. */
export interface ProtectedEndpoint {
  /**
   * Checks the bearer token of a request (body already parsed). Answers 401 or 403 with a
   * `WWW-Authenticate` challenge itself and returns false when the request may not go on.
   */
  authorize(
    request: IncomingMessage,
    response: ServerResponse,
    parsedBody: unknown,
  ): Promise<boolean>;
  /** Serves an authorized request with the wrapped modern endpoint. */
  handle(request: IncomingMessage, response: ServerResponse, parsedBody: unknown): Promise<void>;
  /** The RFC 9728 protected resource metadata document. */
  metadata(): Record<string, unknown>;
  /** Publishes `notifications/tools/list_changed` on open listen streams. */
  notifyToolsChanged(): void;
  /** Aborts in-flight exchanges. */
  close(): Promise<void>;
}

/** RFC 6750 `b64token` after the `Bearer` scheme. */
const BEARER_PATTERN = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

interface Challenge {
  status: 401 | 403;
  error?: 'invalid_token' | 'insufficient_scope';
  description?: string;
  scopes: string[];
}

/**
 * Creates the protected endpoint: the modern (2026-07-28) endpoint over a state with the admin
 * tool added, behind a bearer check. A request needs a token the authorization server knows,
 * bound (RFC 8707) to this endpoint's URL when it is bound at all, with `mcp:tools`; calling
 * `reset_demo_data` also needs `mcp:admin` (403 `insufficient_scope` → MCP step-up).
 */
export function createProtectedEndpoint(
  state: DemoServerState,
  options: ProtectedEndpointOptions,
): ProtectedEndpoint {
  const modern = createModernEndpoint(withAdminTools(state));
  // The base URL is known only once the demo server listens, so these are computed per use.
  const resourceUrl = (): string => `${state.url}${PROTECTED_PATH}`;
  const metadataUrl = (): string => `${state.url}${PROTECTED_RESOURCE_METADATA_PATH}`;

  function refuse(response: ServerResponse, challenge: Challenge): false {
    const parameters: string[] = [];
    if (challenge.error !== undefined) parameters.push(`error="${challenge.error}"`);
    // Descriptions are fixed text of this file, never request data (no quoting needed).
    if (challenge.description !== undefined) {
      parameters.push(`error_description="${challenge.description}"`);
    }
    parameters.push(
      `resource_metadata="${metadataUrl()}"`,
      `scope="${challenge.scopes.join(' ')}"`,
    );
    const body =
      challenge.error === undefined
        ? { error: 'unauthorized', error_description: 'A bearer token is required.' }
        : { error: challenge.error, error_description: challenge.description };
    sendJson(response, challenge.status, body, {
      'www-authenticate': `Bearer ${parameters.join(', ')}`,
    });
    return false;
  }

  async function checkToken(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<boolean> {
    const match = BEARER_PATTERN.exec(headerValue(request, 'authorization') ?? '');
    const token = match?.[1];
    if (token === undefined) return refuse(response, { status: 401, scopes: [TOOLS_SCOPE] });
    const grant = await options.verifyAccessToken(token);
    if (grant === undefined) {
      return refuse(response, {
        status: 401,
        error: 'invalid_token',
        description: 'The access token is invalid, expired or revoked.',
        scopes: [TOOLS_SCOPE],
      });
    }
    if (grant.resource !== undefined && grant.resource.href !== resourceUrl()) {
      return refuse(response, {
        status: 401,
        error: 'invalid_token',
        description: 'The access token was issued for another resource.',
        scopes: [TOOLS_SCOPE],
      });
    }
    if (!grant.scopes.includes(TOOLS_SCOPE)) {
      return refuse(response, {
        status: 403,
        error: 'insufficient_scope',
        description: 'This endpoint needs the mcp:tools scope.',
        scopes: [TOOLS_SCOPE],
      });
    }
    const needsAdmin = calledToolNames(body).includes(RESET_DEMO_DATA_TOOL);
    if (needsAdmin && !grant.scopes.includes(ADMIN_SCOPE)) {
      return refuse(response, {
        status: 403,
        error: 'insufficient_scope',
        description: 'reset_demo_data needs the mcp:admin scope.',
        scopes: [TOOLS_SCOPE, ADMIN_SCOPE],
      });
    }
    return true;
  }

  return {
    authorize: checkToken,
    handle: (request, response, parsedBody) => modern.handle(request, response, parsedBody),
    metadata() {
      return {
        resource: resourceUrl(),
        authorization_servers: [options.authorizationServerUrl],
        // Only the baseline scope: clients without a challenge request all of these (MCP scope
        // selection), and mcp:admin is meant to be reached by step-up, not asked for up front.
        scopes_supported: [TOOLS_SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'Switchboard demo MCP server (OAuth-protected)',
      };
    },
    notifyToolsChanged: () => modern.notifyToolsChanged(),
    close: () => modern.close(),
  };
}
