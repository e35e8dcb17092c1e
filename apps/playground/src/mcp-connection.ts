import { isSwitchboardError, mcpServer, SwitchboardError, type McpServer } from '@switchboard/core';

/** What {@link McpConnection} holds: the URL and the server instance for it. */
export interface McpConnectionSnapshot {
  url: string;
  /** Undefined before the first `connect` and after `disconnect`. */
  server: McpServer | undefined;
  /** Set when the server connected but listing its tools failed. */
  listError?: SwitchboardError;
}

/**
 * The playground's one MCP server connection as a store (`subscribe` / `getSnapshot`). Each
 * `connect` builds a fresh {@link McpServer} and closes the previous one, so a late update of an
 * old connection can never overwrite the state of the new one.
 */
export class McpConnection {
  readonly defaultUrl: string;
  #snapshot: McpConnectionSnapshot;
  readonly #listeners = new Set<() => void>();

  constructor(defaultUrl: string) {
    this.defaultUrl = defaultUrl;
    this.#snapshot = { url: defaultUrl, server: undefined };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getSnapshot = (): McpConnectionSnapshot => this.#snapshot;

  /**
   * Connects to `url` (default: the current URL, i.e. reconnect) and lists its tools in the
   * background; progress and failures show in the server's own snapshot.
   *
   * @throws SwitchboardError `invalid_input` when `url` is not an http(s) URL; the current
   *   connection then stays as it is.
   */
  connect(url: string = this.#snapshot.url): void {
    const trimmed = url.trim();
    const server = mcpServer({
      url: trimmed,
      // The bundled demo server has a name; any other server is named by its host.
      ...(trimmed === this.defaultUrl ? { name: 'everything' } : {}),
    });
    const previous = this.#snapshot.server;
    this.#set({ url: trimmed, server });
    void previous?.close();
    server.listTools().catch((error: unknown) => {
      // Connection failures are in the server's snapshot; only report a failed listing here.
      if (this.#snapshot.server !== server || server.getSnapshot().status === 'error') return;
      this.#set({
        ...this.#snapshot,
        listError: isSwitchboardError(error)
          ? error
          : new SwitchboardError('mcp_error', String(error), { cause: error }),
      });
    });
  }

  /** Closes the current server, if any. */
  disconnect(): void {
    const previous = this.#snapshot.server;
    if (previous === undefined) return;
    this.#set({ url: this.#snapshot.url, server: undefined });
    void previous.close();
  }

  #set(next: McpConnectionSnapshot): void {
    this.#snapshot = next;
    for (const listener of this.#listeners) listener();
  }
}
