import type { Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** Options of {@link stdioTransport}: how to start the server process. */
export interface StdioTransportOptions {
  /** The executable, e.g. `node`, `npx` or an absolute path. Run without a shell. */
  command: string;
  /** Its arguments. Default none. */
  args?: readonly string[];
  /**
   * Extra environment variables. They are added to the SDK's safe default set (`HOME`, `PATH`,
   * `USER`, … — not the whole parent environment, so secrets in it are not passed on).
   */
  env?: Record<string, string>;
  /** Working directory of the process. Default: the current one. */
  cwd?: string;
  /** What happens to the process's stderr: `inherit` (default), `pipe` or `ignore`. */
  stderr?: 'inherit' | 'pipe' | 'ignore';
}

/**
 * A transport factory for an MCP server that runs as a child process speaking JSON-RPC over
 * stdin/stdout (`StdioClientTransport` of `@modelcontextprotocol/client/stdio`). Pass it as
 * `createTransport` of `McpConnection`: every connect starts a fresh process, and closing the
 * transport (the connection's `close()`) ends it — stdin is closed, then SIGTERM after 2 s and
 * SIGKILL after 2 s more.
 *
 * With `versionNegotiation: { mode: 'auto' }` the SDK probes the era on a short-lived sibling
 * process from the same options (its stderr discarded) on the first connect; later connects of
 * the same `McpConnection` reuse the verdict and start one process only.
 *
 * Node only (`@switchboard/core/node`).
 *
 * @returns A function that makes a new, not yet started transport on each call.
 */
export function stdioTransport(options: StdioTransportOptions): () => Transport {
  const { command, args, env, cwd, stderr } = options;
  return () =>
    new StdioClientTransport({
      command,
      ...(args !== undefined ? { args: [...args] } : {}),
      ...(env !== undefined ? { env: { ...env } } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(stderr !== undefined ? { stderr } : {}),
    });
}
