import { InMemoryTransport, type Transport } from '@modelcontextprotocol/client';
import { McpServer, type McpServerOptions } from '../mcp/mcp-server.ts';

/**
 * What {@link linkedMcpServer} needs of an MCP server: the `connect(transport)` of the MCP SDK's
 * `McpServer` (or low-level `Server`) from `@modelcontextprotocol/server`. Typed structurally so
 * that `@switchboard/core` does not depend on the server SDK; your tests do.
 */
export interface LinkableMcpServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link linkedMcpServer}: those of `mcpServer()` without the HTTP ones. */
export interface LinkedMcpServerOptions extends Omit<
  McpServerOptions,
  'url' | 'transport' | 'headers' | 'createTransport' | 'authProvider'
> {
  /**
   * Makes the server side: a new SDK server per connection (a server instance serves one
   * transport, and `McpServer` reconnects after `close()`).
   */
  createServer: () => LinkableMcpServer;
}

/**
 * An {@link McpServer} connected in memory to an MCP SDK server in the same process, through the
 * SDK's `InMemoryTransport.createLinkedPair()`: the real protocol (initialize, `tools/list`,
 * `tools/call`, progress, elicitation) with no HTTP. For an app's own tests; the wire (HTTP, SSE,
 * sessions, OAuth) is tested against real servers.
 *
 * ```ts
 * import { McpServer as SdkServer } from '@modelcontextprotocol/server';
 * const server = linkedMcpServer({
 *   name: 'files',
 *   createServer: () => {
 *     const sdk = new SdkServer({ name: 'files', version: '1.0.0' });
 *     sdk.registerTool('delete_file', { inputSchema: z.object({ path: z.string() }) }, …);
 *     return sdk;
 *   },
 * });
 * ```
 */
export function linkedMcpServer(options: LinkedMcpServerOptions): McpServer {
  const { createServer, ...rest } = options;
  return new McpServer({
    name: 'linked',
    ...rest,
    createTransport: () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const server = createServer();
      // The server side closes with the client side: closing the pair ends both.
      const close = clientSide.close.bind(clientSide);
      clientSide.close = async () => {
        await close();
        await server.close();
      };
      void server.connect(serverSide);
      return clientSide;
    },
  });
}
