import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * One request the test authorization server received. Holds no secret: never a token, code,
 * verifier or client secret, so tests may print it.
 */
export interface AuthorizationServerRequest {
  /** HTTP method (`GET`, `POST`, `OPTIONS`). */
  method: string;
  /** URL path without the query, e.g. `/token`. */
  path: string;
  /** `grant_type` of a token request, e.g. `authorization_code` or `refresh_token`. */
  grantType?: string;
  /** RFC 8707 `resource` parameter of an authorization or token request, as sent. */
  resource?: string;
  /** `client_id` of an authorization, consent, token or revocation request. */
  clientId?: string;
}

/** Where the log entry of the current request lives (`res.locals`), for later annotation. */
const ENTRY_KEY = 'authorizationServerRequest';

function stringField(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** The log entry of the request being served, if the logging middleware ran. */
export function requestEntryOf(response: Response): AuthorizationServerRequest | undefined {
  return response.locals[ENTRY_KEY] as AuthorizationServerRequest | undefined;
}

/**
 * Middleware that logs every request into `requests` (arrival order): first the method and
 * path, then — once the form body is parsed — `grant_type`, `resource` and `client_id` from the
 * body or, for a GET, the query. The form body is parsed here so the SDK's handlers, which parse
 * it too, find it already read (body-parser skips a finished request).
 */
export function logRequests(requests: AuthorizationServerRequest[]): RequestHandler[] {
  const arrive: RequestHandler = (request, response, next) => {
    const entry: AuthorizationServerRequest = { method: request.method, path: request.path };
    requests.push(entry);
    response.locals[ENTRY_KEY] = entry;
    next();
  };
  const annotate = (request: Request, response: Response, next: NextFunction): void => {
    const entry = requestEntryOf(response);
    const source: unknown = request.method === 'GET' ? request.query : request.body;
    const grantType = stringField(source, 'grant_type');
    const resource = stringField(source, 'resource');
    const clientId = stringField(source, 'client_id');
    if (entry !== undefined) {
      if (grantType !== undefined) entry.grantType = grantType;
      if (resource !== undefined) entry.resource = resource;
      if (clientId !== undefined) entry.clientId = clientId;
    }
    next();
  };
  return [arrive, express.urlencoded({ extended: false, limit: '64kb' }), annotate];
}
