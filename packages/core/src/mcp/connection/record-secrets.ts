import type { Client } from '@modelcontextprotocol/client';
import type { SecretScrubber } from '../../internal/secret-scrubber.ts';

/** Request headers that carry protocol facts, never credentials: not recorded as secrets. */
const PROTOCOL_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'host',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'user-agent',
]);

/**
 * The fetch middleware chain with a recorder nearest the network: every header value a request
 * to the server carries (the caller's headers, the SDK's OAuth `Authorization`, the session id),
 * except protocol headers, goes into `scrubber`.
 */
export function recordSecrets(
  scrubber: SecretScrubber,
  middleware: ((next: typeof fetch, client: Client) => typeof fetch) | undefined,
): (next: typeof fetch, client: Client) => typeof fetch {
  return (next, client) => {
    const recording: typeof fetch = (input, init) => {
      // The session fetch hands over a `Headers` already: read it, no copy per request.
      const headers = init?.headers;
      (headers instanceof Headers ? headers : new Headers(headers)).forEach((value, name) => {
        if (!PROTOCOL_HEADERS.has(name)) scrubber.add(value);
      });
      return next(input, init);
    };
    return middleware === undefined ? recording : middleware(recording, client);
  };
}
