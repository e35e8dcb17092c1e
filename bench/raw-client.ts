import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * The baseline of the MCP benchmarks: the raw `@modelcontextprotocol/client` `Client` on a
 * Streamable HTTP transport, configured as its README shows (automatic version negotiation, the
 * SDK's own defaults otherwise).
 */
export async function connectRawClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'bench-raw-client', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
