import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/** How to start a stdio MCP server's process. */
export interface StdioProcessOptions {
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
}

/**
 * What happens to a stdio server's stderr, its log (stdout carries the protocol):
 *
 * - `'inherit'` (default): written to this process's stderr, as the server wrote it;
 * - `'ignore'`: discarded (the child writes to the null device);
 * - `'pipe'` with `onStderr`: read by this process and handed to `onStderr` one line at a time
 *   (UTF-8, without the line ending; a last line without one when the stream ends). The pipe is
 *   always drained, so a server that logs a lot never blocks on a full pipe. A throwing
 *   `onStderr` is reported (`console.error`) and reading goes on.
 *
 * Only the server's own process is meant: the short-lived sibling the SDK starts to probe the
 * protocol era on the first connect (see {@link stdioTransport}) has its stderr discarded.
 */
export type StdioStderrOptions =
  | {
      stderr?: 'inherit' | 'ignore';
      onStderr?: never;
    }
  | {
      stderr: 'pipe';
      /** Called with each line the server writes to stderr. */
      onStderr: (line: string) => void;
    };

/** Options of {@link stdioTransport}: how to start the server process, and where its stderr goes. */
export type StdioTransportOptions = StdioProcessOptions & StdioStderrOptions;

/**
 * A transport factory for an MCP server that runs as a child process speaking JSON-RPC over
 * stdin/stdout (`StdioClientTransport` of `@modelcontextprotocol/client/stdio`). Pass it as
 * `createTransport` of `McpConnection`: every connect starts a fresh process, and closing the
 * transport (the connection's `close()`) ends it — stdin is closed, then SIGTERM after 2 s and
 * SIGKILL after 2 s more. The process's stderr goes where `stderr` says
 * ({@link StdioStderrOptions}).
 *
 * With `versionNegotiation: { mode: 'auto' }` the SDK probes the era on a short-lived sibling
 * process from the same options (its stderr discarded) on the first connect; later connects of
 * the same `McpConnection` reuse the verdict and start one process only.
 *
 * Node only (`@switchboard/core/node`).
 *
 * @returns A function that makes a new, not yet started transport on each call.
 * @throws `SwitchboardError` `invalid_input` when `stderr` is `'pipe'` without an `onStderr`
 *   function (nobody would read the pipe, and a full pipe stops the server), or is not one of
 *   the three modes.
 */
export function stdioTransport(options: StdioTransportOptions): () => Transport {
  const { command, args, env, cwd } = options;
  const stderr = options.stderr ?? 'inherit';
  const onStderr = options.onStderr;
  if (stderr !== 'inherit' && stderr !== 'ignore' && stderr !== 'pipe') {
    throw new SwitchboardError(
      'invalid_input',
      `stdio stderr must be 'inherit', 'ignore' or 'pipe', not ${JSON.stringify(stderr)}.`,
    );
  }
  if (stderr === 'pipe' && typeof onStderr !== 'function') {
    throw new SwitchboardError(
      'invalid_input',
      "stdio stderr 'pipe' needs an onStderr function to read the server's stderr.",
    );
  }
  return () => {
    const transport = new StdioClientTransport({
      command,
      ...(args !== undefined ? { args: [...args] } : {}),
      ...(env !== undefined ? { env: { ...env } } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      stderr,
    });
    // The SDK hands out its stderr PassThrough before `start()`, so no early line is missed.
    if (stderr === 'pipe' && onStderr !== undefined) {
      readLines(transport.stderr as Readable | null, onStderr);
    }
    return transport;
  };
}

function readLines(stream: Readable | null, onLine: (line: string) => void): void {
  if (stream === null) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) => {
    try {
      onLine(line);
    } catch (error) {
      // The app's reader failing must not stop the server (the pipe would fill up) or crash us.
      console.error(error);
    }
  });
}
