import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { TestAuthorizationServer } from '../oauth/test-authorization-server.ts';
import type { DemoServerState } from './demo-server-state.ts';
import { applyFaultPatch, faultPatchSchema, snapshotFaults } from './fault-switches.ts';
import type { FaultSwitches } from './fault-switches.ts';
import { escapeHtml, sendJson, sendText } from './http-support.ts';

/** What the control and demo routes need from the server. */
export interface ControlContext {
  state: DemoServerState;
  faults: FaultSwitches;
  /** Sends `list_changed` on both eras (modern listen streams, legacy sessions). */
  notifyToolsChanged(): void;
  /** Live session counts, reported by `GET /control/faults`. */
  sessionCounts(): { legacyStreamable: number; legacySse: number };
  /** The authorization server, when the demo server was started with `oauth`. */
  authorizationServer?: Pick<TestAuthorizationServer, 'expireAccessTokens' | 'tokenRequestCount'>;
}

const toolsChangedSchema = z.object({ enabled: z.boolean().optional() }).strict();
const expireAccessTokensSchema = z.object({ clientId: z.string().min(1).optional() }).strict();

/** The token requests the authorization server received, by grant type (counts only). */
function tokenRequestCounts(
  authorizationServer: NonNullable<ControlContext['authorizationServer']>,
  clientId: string | undefined,
): { authorization_code: number; refresh_token: number } {
  const options = clientId === undefined ? {} : { clientId };
  return {
    authorization_code: authorizationServer.tokenRequestCount('authorization_code', options),
    refresh_token: authorizationServer.tokenRequestCount('refresh_token', options),
  };
}

function faultsBody(context: ControlContext): Record<string, unknown> {
  return { ...snapshotFaults(context.faults), sessions: context.sessionCounts() };
}

function methodNotAllowed(response: ServerResponse, allow: string): void {
  sendText(response, 405, 'Method not allowed.', undefined, { allow });
}

function invalidBody(response: ServerResponse, error: z.ZodError): void {
  sendJson(response, 400, { error: z.prettifyError(error) });
}

/**
 * Serves the control and demo routes:
 * - `GET /control/faults` → the switches plus live session counts;
 * - `POST /control/faults` with a JSON patch of the switches (see `faultPatchSchema`) → applies it, answers like GET;
 * - `POST /control/tools-changed` (optional body `{ "enabled": boolean }`) → adds or removes
 *   `dynamic_tool` (toggles by default) and sends `list_changed` on both eras;
 * - `GET /demo/authorize?elicitation=<id>` → an HTML page saying "Authorized" (marks the URL
 *   elicitation as visited; on the 2025 era this sends `notifications/elicitation/complete`);
 * - with an authorization server (`oauth`) only:
 *   - `POST /control/oauth/expire-access-tokens` (optional body `{ "clientId": string }`) →
 *     every access token issued so far (or that client's) is expired at once; refresh tokens
 *     stay valid. Answers `{ "expired": n }`;
 *   - `GET /control/oauth/token-requests` (optional `?clientId=`) → how many token requests
 *     the authorization server received, `{ "authorization_code": n, "refresh_token": n }`
 *     (failed ones included; counts only, never a token).
 *
 * @returns False when `path` is not one of these routes.
 */
export function handleControlRoute(
  context: ControlContext,
  method: string,
  url: URL,
  body: unknown,
  response: ServerResponse,
): boolean {
  switch (url.pathname) {
    case '/control/faults': {
      if (method === 'GET') {
        sendJson(response, 200, faultsBody(context));
      } else if (method === 'POST') {
        const patch = faultPatchSchema.safeParse(body ?? {});
        if (!patch.success) {
          invalidBody(response, patch.error);
          return true;
        }
        applyFaultPatch(context.faults, patch.data);
        sendJson(response, 200, faultsBody(context));
      } else {
        methodNotAllowed(response, 'GET, POST, OPTIONS');
      }
      return true;
    }
    case '/control/tools-changed': {
      if (method !== 'POST') {
        methodNotAllowed(response, 'POST, OPTIONS');
        return true;
      }
      const request = toolsChangedSchema.safeParse(body ?? {});
      if (!request.success) {
        invalidBody(response, request.error);
        return true;
      }
      const { state } = context;
      state.dynamicToolEnabled = request.data.enabled ?? !state.dynamicToolEnabled;
      context.notifyToolsChanged();
      sendJson(response, 200, {
        dynamicToolEnabled: state.dynamicToolEnabled,
        toolCount: state.listedTools().length,
      });
      return true;
    }
    case '/control/oauth/expire-access-tokens': {
      const authorizationServer = context.authorizationServer;
      if (authorizationServer === undefined) return false;
      if (method !== 'POST') {
        methodNotAllowed(response, 'POST, OPTIONS');
        return true;
      }
      const request = expireAccessTokensSchema.safeParse(body ?? {});
      if (!request.success) {
        invalidBody(response, request.error);
        return true;
      }
      const { clientId } = request.data;
      const expired = authorizationServer.expireAccessTokens(
        clientId === undefined ? {} : { clientId },
      );
      sendJson(response, 200, { expired });
      return true;
    }
    case '/control/oauth/token-requests': {
      const authorizationServer = context.authorizationServer;
      if (authorizationServer === undefined) return false;
      if (method !== 'GET') {
        methodNotAllowed(response, 'GET, OPTIONS');
        return true;
      }
      const clientId = url.searchParams.get('clientId');
      sendJson(
        response,
        200,
        tokenRequestCounts(
          authorizationServer,
          clientId === null || clientId === '' ? undefined : clientId,
        ),
      );
      return true;
    }
    case '/demo/authorize': {
      if (method !== 'GET') {
        methodNotAllowed(response, 'GET');
        return true;
      }
      const elicitationId = url.searchParams.get('elicitation') ?? '';
      const known = context.state.authorizations.visit(elicitationId);
      const detail = known
        ? `Elicitation ${escapeHtml(elicitationId)} is authorized. You can close this window.`
        : `Unknown elicitation ${escapeHtml(elicitationId)} (still showing the page for the demo).`;
      sendText(
        response,
        200,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorized</title></head>` +
          `<body><h1>Authorized</h1><p>${detail}</p></body></html>`,
        'text/html; charset=utf-8',
      );
      return true;
    }
    default:
      return false;
  }
}
