import { SwitchboardError } from '../errors/switchboard-error.ts';

/** What identifies one server's tool listing, for {@link schemaCacheKey}. */
export interface SchemaCacheKeyInput {
  /** The server endpoint. Its fragment is ignored (never sent to the server). */
  url: string | URL;
  /** The transport option of the server (`auto`, `streamable-http` or `sse`). */
  transport: 'auto' | 'streamable-http' | 'sse';
  /** Names of the tools kept; order and duplicates do not matter. Absent: every tool. */
  toolFilter?: readonly string[];
  /** The prefix put before every tool name. */
  toolPrefix?: string;
  /**
   * The headers sent to the server, already resolved (call an `McpHeaders` function first).
   * Names are case-insensitive. Only their SHA-256 enters the key.
   */
  headers?: Record<string, string> | Headers | readonly (readonly [string, string])[];
}

const KEY_PREFIX = 'switchboard-schema-cache:v1:';
/** Query parameter names that may carry credentials; their values are replaced (substring, any case). */
const SECRET_PARAMETER =
  /token|key|secret|pass|pwd|auth|credential|sig|session|jwt|bearer|code|cookie|private|otp|nonce|ticket/i;
/** Path segments that look like API keys (well-known token prefixes). */
const TOKEN_PREFIX = /^(sk|pk|rk|ghp|gho|ghu|ghs|github_pat|glpat|xox[abprs]|AKIA)[-_]?/i;
/** What stands in the key for a value that went into the digest instead. */
const REDACTED = '~';

/**
 * A stable cache key for one MCP server's tool listing: equal inputs give equal keys (across
 * pages, processes and releases of the same key version), and no credential appears in it
 * (docs/architecture.md, "Security rules").
 *
 * The key is `switchboard-schema-cache:v1:` followed by JSON of:
 * - `transport`;
 * - `url`: origin (normalised by `URL`: lowercase host, no default port) + path + query, where
 *   user name and password are dropped, path segments that look like tokens (a known key prefix
 *   such as `sk-` or `ghp_`, 32+ characters, or 16+ characters mixing letters and digits) become
 *   `~`, and the values of query parameters whose names look secret (`token`, `key`, `auth`,
 *   `sig`, `code`, … anywhere in the name, any case) become `~`;
 * - `toolFilter`: the names sorted and deduplicated, or `null`;
 * - `toolPrefix` or `null`;
 * - `credentials`: `sha256:` + hex SHA-256 (WebCrypto `crypto.subtle`) of the header names
 *   (lowercased) and values, the user name and password, and every redacted path segment and
 *   query value. Different credentials therefore give different keys without showing them.
 *
 * A plain SHA-256 does not hide a guessable (low-entropy) secret from someone who can read the
 * keys; it keeps tokens out of logs, devtools listings and storage dumps.
 *
 * @throws SwitchboardError `invalid_input` when `url` is not a URL, a header is invalid, or
 *   WebCrypto is missing (browsers offer `crypto.subtle` only in secure contexts: https or
 *   localhost); `aborted` when `options.signal` aborts.
 */
export async function schemaCacheKey(
  input: SchemaCacheKeyInput,
  options: { signal?: AbortSignal } = {},
): Promise<string> {
  const { signal } = options;
  throwIfAborted(signal);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch (error) {
    throw new SwitchboardError('invalid_input', 'The schema cache key needs a valid URL.', {
      cause: error,
    });
  }
  let headers: [string, string][];
  try {
    headers = [...new Headers(input.headers as HeadersInit | undefined).entries()].sort(
      ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0),
    );
  } catch (error) {
    // The message of a header validation error may quote the value: keep it out of `cause`.
    throw new SwitchboardError('invalid_input', 'The schema cache key got invalid headers.', {
      details: { reason: error instanceof Error ? error.name : 'invalid' },
    });
  }

  const secretSegments: string[] = [];
  const path = url.pathname
    .split('/')
    .map((segment) => {
      if (!looksLikeToken(segment)) return segment;
      secretSegments.push(segment);
      return REDACTED;
    })
    .join('/');

  const secretParameters: [string, string][] = [];
  const parameters: string[] = [];
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAMETER.test(name)) secretParameters.push([name, value]);
    const shown = SECRET_PARAMETER.test(name) ? REDACTED : encodeURIComponent(value);
    parameters.push(`${encodeURIComponent(name)}=${shown}`);
  }
  const search = parameters.length === 0 ? '' : `?${parameters.join('&')}`;

  const credentials = await sha256Hex(
    JSON.stringify({
      headers,
      user: [url.username, url.password],
      path: secretSegments,
      query: secretParameters,
    }),
  );
  throwIfAborted(signal);

  const filter =
    input.toolFilter === undefined
      ? null
      : [...new Set(input.toolFilter)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return (
    KEY_PREFIX +
    JSON.stringify({
      transport: input.transport,
      url: `${url.origin}${path}${search}`,
      toolFilter: filter,
      toolPrefix: input.toolPrefix ?? null,
      credentials: `sha256:${credentials}`,
    })
  );
}

function looksLikeToken(segment: string): boolean {
  if (segment === '') return false;
  if (TOKEN_PREFIX.test(segment) && segment.length >= 12) return true;
  if (segment.length >= 32) return true;
  return segment.length >= 16 && /[0-9]/.test(segment) && /[a-z]/i.test(segment);
}

async function sha256Hex(text: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle as SubtleCrypto | undefined;
  if (subtle === undefined) {
    throw new SwitchboardError(
      'invalid_input',
      'schemaCacheKey needs WebCrypto (crypto.subtle); browsers offer it only in secure contexts (https or localhost).',
    );
  }
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'Computing the schema cache key was aborted.', {
      cause: signal.reason,
    });
  }
}
