import { McpServer, type McpServerOptions } from '../mcp/mcp-server.ts';
import { stdioTransport, type StdioTransportOptions } from './stdio-transport.ts';

/** Options of {@link nodeMcpServer}: an HTTP server as in the root entry, or a stdio command. */
export type NodeMcpServerOptions =
  | McpServerOptions
  | (Omit<McpServerOptions, 'url' | 'transport' | 'headers' | 'createTransport'> &
      StdioTransportOptions);

/**
 * Creates an {@link McpServer} in Node: over HTTP exactly like the root entry's `mcpServer`, or,
 * given a `command`, over stdio — the server runs as a child process, and `close()` ends it.
 * The process's stderr goes where `stderr` says: `'inherit'` (default), `'ignore'`, or `'pipe'`
 * with an `onStderr(line)` reader (see `StdioStderrOptions`).
 *
 * ```ts
 * const files = nodeMcpServer({ name: 'files', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] });
 * const quiet = nodeMcpServer({ name: 'files', command: 'files-server', stderr: 'pipe', onStderr: (line) => log.debug(line) });
 * ```
 *
 * @throws `SwitchboardError` `invalid_input` for `stderr: 'pipe'` without `onStderr`.
 */
export function nodeMcpServer(options: NodeMcpServerOptions): McpServer {
  if (!('command' in options) || options.command === undefined) {
    return new McpServer(options as McpServerOptions);
  }
  const { command, args, env, cwd, stderr, onStderr, ...rest } = options;
  return new McpServer({
    ...rest,
    name: rest.name ?? command,
    createTransport: stdioTransport({
      command,
      ...(args === undefined ? {} : { args }),
      ...(env === undefined ? {} : { env }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(stderr === 'pipe' ? { stderr, onStderr } : stderr === undefined ? {} : { stderr }),
    }),
  });
}
