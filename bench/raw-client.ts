import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type FetchLike,
} from '@modelcontextprotocol/client';

/** What a benchmark may set on the raw client; unset, the SDK's own defaults. */
export interface RawClientOptions {
  /** Client capabilities to declare (the SDK's default: none). */
  capabilities?: ClientCapabilities;
  /** The transport's `fetch` (to watch what goes on the wire). */
  fetch?: FetchLike;
}

/**
 * The baseline of the MCP benchmarks: the raw `@modelcontextprotocol/client` `Client` on a
 * Streamable HTTP transport, configured as its README shows (automatic version negotiation, the
 * SDK's own defaults otherwise).
 */
export async function connectRawClient(
  url: string,
  options: RawClientOptions = {},
): Promise<Client> {
  const client = new Client(
    { name: 'bench-raw-client', version: '0.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
    },
  );
  const transportOptions = options.fetch === undefined ? {} : { fetch: options.fetch };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), transportOptions));
  return client;
}
