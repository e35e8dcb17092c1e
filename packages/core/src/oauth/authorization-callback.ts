import {
  SwitchboardError,
  type AuthorizationFailureReason,
  type SwitchboardErrorDetails,
} from '../errors/switchboard-error.ts';

export type { AuthorizationFailureReason };

/** Longest `error_description` quoted in a message, in characters. */
const MAX_DESCRIPTION_LENGTH = 300;

/** A `needs_auth` error for `reason`; `message` must hold no secret. */
export function authorizationFailure(
  reason: AuthorizationFailureReason,
  message: string,
  options: {
    cause?: unknown;
    details?: Omit<SwitchboardErrorDetails['needs_auth'], 'reason'>;
  } = {},
): SwitchboardError<'needs_auth'> {
  return new SwitchboardError('needs_auth', message, {
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    details: { reason, ...options.details },
  });
}

/** The `aborted` error of an authorization whose `signal` aborted. */
export function authorizationAborted(where: string, signal: AbortSignal): SwitchboardError {
  return new SwitchboardError('aborted', `${where}: the authorization was aborted.`, {
    cause: signal.reason,
  });
}

/**
 * Why `authorize` cannot start (an aborted `signal`, or an authorization URL that is not
 * http(s)), or `undefined` when it can.
 */
export function authorizationRefusal(
  where: string,
  authorizationUrl: URL,
  signal: AbortSignal | undefined,
): SwitchboardError | undefined {
  if (signal?.aborted === true) return authorizationAborted(where, signal);
  if (authorizationUrl.protocol !== 'https:' && authorizationUrl.protocol !== 'http:') {
    return new SwitchboardError(
      'invalid_input',
      `${where}: the authorization URL must be http(s), not ${authorizationUrl.protocol}`,
    );
  }
  return undefined;
}

/**
 * A label for an MCP server in messages: origin and path, without credentials, query or hash.
 */
export function describeOAuthServer(serverUrl: string): string {
  try {
    const url = new URL(serverUrl);
    return `OAuth for ${url.origin}${url.pathname}`;
  } catch {
    return 'OAuth';
  }
}

/**
 * Checks an authorization response (the redirect URI's query, RFC 6749 §4.1.2) against the
 * `state` this provider issued, and returns a copy of it when it carries a `code`.
 *
 * @param where - Prefix of error messages, such as `describeOAuthServer(serverUrl)`.
 * @throws SwitchboardError `needs_auth`: `state_mismatch` (checked first, also when no state was
 *   issued), `denied` (the message quotes `error` and `error_description`, with any
 *   occurrence of the code removed), `invalid_response` (no code).
 */
export function checkAuthorizationCallback(
  query: URLSearchParams,
  expectedState: string | undefined,
  where: string,
): URLSearchParams {
  const state = query.get('state');
  if (expectedState === undefined || state === null || state !== expectedState) {
    throw authorizationFailure(
      'state_mismatch',
      `${where}: the authorization response does not carry the state this provider issued (a forged or stale response); it was ignored. Start the authorization again.`,
    );
  }
  const code = query.get('code');
  const error = query.get('error');
  if (error !== null) {
    const description = query.get('error_description');
    const text = `${where}: the authorization server refused the authorization: ${quote(error)}${
      description === null ? '' : ` (${quote(description)})`
    }.`;
    throw authorizationFailure('denied', redact(text, code), {
      details: {
        error: redact(error, code),
        ...(description === null ? {} : { errorDescription: redact(description, code) }),
      },
    });
  }
  if (code === null || code === '') {
    throw authorizationFailure(
      'invalid_response',
      `${where}: the authorization response carries neither a code nor an error.`,
    );
  }
  return new URLSearchParams(query);
}

/** `text` without control characters, cut to {@link MAX_DESCRIPTION_LENGTH}. */
function quote(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return clean.length > MAX_DESCRIPTION_LENGTH
    ? `${clean.slice(0, MAX_DESCRIPTION_LENGTH)}…`
    : clean;
}

/** `text` with every occurrence of `secret` replaced. */
function redact(text: string, secret: string | null): string {
  return secret === null || secret === '' ? text : text.replaceAll(secret, '[redacted]');
}
