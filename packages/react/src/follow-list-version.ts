import type { McpServerSnapshot } from '@switchboard/core';
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { useEffect } from 'react';

/**
 * Invalidates `queryKey` whenever `version` of the server's snapshot moves (the server sent a
 * `list_changed` for that list), so the UI follows the server.
 */
export function useInvalidateOnListChange(
  server: { subscribe(listener: () => void): () => void; getSnapshot(): McpServerSnapshot },
  queryClient: QueryClient,
  queryKey: QueryKey,
  version: (snapshot: McpServerSnapshot) => number | undefined,
): void {
  const key = JSON.stringify(queryKey);
  useEffect(() => {
    let seen = version(server.getSnapshot());
    return server.subscribe(() => {
      const next = version(server.getSnapshot());
      if (next === seen) return;
      seen = next;
      void queryClient.invalidateQueries({ queryKey: JSON.parse(key) as QueryKey });
    });
    // `version` is a selector the hooks define once at module level.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [server, queryClient, key]);
}
