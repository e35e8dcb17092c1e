import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';

/**
 * Classifies a failure talking to an MCP server into a {@link SwitchboardError} with a code per
 * failure class. `where` names the server for the message: its name and the URL without query
 * or credentials, so no secret reaches a message.
 */
export function toMcpError(error: unknown, where: string, signal?: AbortSignal): SwitchboardError {
  if (isSwitchboardError(error)) return error;
  if (signal?.aborted || isAbortError(error)) {
    return new SwitchboardError('aborted', `The request to ${where} was aborted.`, {
      cause: error,
    });
  }
  if (error instanceof SdkHttpError) {
    const status = error.status;
    return new SwitchboardError(
      'http_status',
      `${where} answered HTTP ${status}${error.statusText ? ` ${error.statusText}` : ''}: ${excerpt(error.message)}`,
      { cause: error, details: { status } },
    );
  }
  // A failed probe wraps the network error: look through causes before the SDK's own codes.
  if (isConnectionFailure(error)) {
    return new SwitchboardError(
      'connection_refused',
      `Could not reach ${where}: the connection was refused or blocked. Is the server running, and does it allow this origin (CORS)?`,
      { cause: error },
    );
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new SwitchboardError('timeout', `${where} did not answer in time.`, { cause: error });
    }
    if (error.code === SdkErrorCode.EraNegotiationFailed) {
      return new SwitchboardError(
        'unsupported_protocol_version',
        `${where} speaks no MCP protocol version this client supports: ${excerpt(error.message)}`,
        { cause: error },
      );
    }
    if (error.code === SdkErrorCode.InvalidResult) {
      return new SwitchboardError(
        'invalid_response',
        `${where} sent an invalid response: ${excerpt(error.message)}`,
        {
          cause: error,
        },
      );
    }
  }
  if (error instanceof ProtocolError) {
    return new SwitchboardError(
      'mcp_error',
      `${where} returned error ${error.code}: ${excerpt(error.message)}`,
      {
        cause: error,
        details: { code: error.code },
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/unsupported protocol version/i.test(message)) {
    return new SwitchboardError('unsupported_protocol_version', `${where}: ${excerpt(message)}`, {
      cause: error,
    });
  }
  if (error instanceof SyntaxError || /JSON/.test(message)) {
    return new SwitchboardError(
      'invalid_response',
      `${where} sent an invalid response: ${excerpt(message)}`,
      {
        cause: error,
      },
    );
  }
  return new SwitchboardError('mcp_error', `${where} failed: ${excerpt(message)}`, {
    cause: error,
  });
}

/** `name (http://host/path)` with query and credentials removed. */
export function describeServer(name: string, url: URL): string {
  return `MCP server "${name}" (${url.origin}${url.pathname})`;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function isConnectionFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (
      code === 'ECONNREFUSED' ||
      code === 'ECONNRESET' ||
      code === 'ENOTFOUND' ||
      code === 'EHOSTUNREACH'
    ) {
      return true;
    }
    // Browsers report refused connections and CORS failures alike as a bare TypeError.
    if (current instanceof TypeError && /fetch|network|load failed/i.test(current.message))
      return true;
    current = current.cause;
  }
  return false;
}

function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
