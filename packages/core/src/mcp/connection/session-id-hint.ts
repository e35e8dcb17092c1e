import { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { HandshakeRecord } from './session-fetch.ts';

const EXPOSE_SESSION_ID_HINT =
  'The server requires a session, but no Mcp-Session-Id header could be read from its ' +
  'initialize response. In a browser the server must send ' +
  '`Access-Control-Expose-Headers: Mcp-Session-Id` on that response (not only on the preflight).';

/**
 * `error` with the `Access-Control-Expose-Headers: Mcp-Session-Id` hint added when that explains
 * it: an HTTP 400 about the session right after an `initialize` whose session id could not be
 * read (a browser hides the header unless the server exposes it). Otherwise `error`.
 */
export function withSessionIdHint(
  error: SwitchboardError,
  cause: unknown,
  handshake: HandshakeRecord | undefined,
): SwitchboardError {
  if (
    error.code !== 'http_status' ||
    error.details?.status !== 400 ||
    handshake?.initializeSucceeded !== true ||
    handshake.sessionIdReadable ||
    !/session/i.test(error.message) ||
    error.message.includes(EXPOSE_SESSION_ID_HINT)
  ) {
    return error;
  }
  return new SwitchboardError('http_status', `${error.message} ${EXPOSE_SESSION_ID_HINT}`, {
    cause,
    details: { ...error.details, hint: 'expose-mcp-session-id' },
  });
}
