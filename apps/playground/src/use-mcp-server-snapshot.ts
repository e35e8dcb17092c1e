import type { McpServer, McpServerSnapshot } from '@switchboard/core';
import { useCallback, useSyncExternalStore } from 'react';

const noServer: McpServerSnapshot = { status: 'idle', completedElicitations: [] };
const noSubscription = () => () => undefined;

/** The live snapshot of `server` (status, protocol, tools); `idle` while there is none. */
export function useMcpServerSnapshot(server: McpServer | undefined): McpServerSnapshot {
  const subscribe = useCallback(
    (listener: () => void) =>
      server === undefined ? noSubscription() : server.subscribe(listener),
    [server],
  );
  const getSnapshot = useCallback(() => server?.getSnapshot() ?? noServer, [server]);
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}
