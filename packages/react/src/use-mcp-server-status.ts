import { SwitchboardError, type McpServerSnapshot } from '@switchboard/core';
import { useCallback, useSyncExternalStore } from 'react';
import type { McpServerLike } from './mcp-server-like.ts';

/** What {@link useMcpServerStatus} returns: the server's snapshot plus a `connect` trigger. */
export interface UseMcpServerStatusResult extends McpServerSnapshot {
  /**
   * Connects (single-flight; after a failure it tries again). Never rejects: a failure shows as
   * `status: 'error'` with `error` in the snapshot.
   */
  connect(): Promise<void>;
}

/**
 * An MCP server's connection state — `status` (`idle`, `connecting`, `connected`, `error`,
 * `closed`), `error`, `protocolEra`, `protocolVersion`, `serverInfo`, `tools` — re-rendered on
 * every change (`useSyncExternalStore` over the server's store), with a `connect()` trigger.
 *
 * @throws SwitchboardError `invalid_input` when `server` is missing.
 */
export function useMcpServerStatus(server: McpServerLike): UseMcpServerStatusResult {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpServerStatus needs an McpServer argument.');
  }
  const subscribe = useCallback((listener: () => void) => server.subscribe(listener), [server]);
  const getSnapshot = useCallback(() => server.getSnapshot(), [server]);
  const snapshot = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
  const connect = useCallback(
    () =>
      server.connect().catch(() => {
        // The failure is in the snapshot (status 'error', error).
      }),
    [server],
  );
  return { ...snapshot, connect };
}
