import { SwitchboardError, type McpToolDescriptor } from '@switchboard/core';
import { useQuery, type QueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { McpServerLike } from './mcp-server-like.ts';
import { switchboardQueryKeys } from './query-keys.ts';
import { useResolvedQueryClient } from './use-resolved-query-client.ts';

/** Options of {@link useMcpTools}. */
export interface UseMcpToolsOptions {
  /** Default: the provider's, else the nearest `QueryClientProvider`'s. */
  queryClient?: QueryClient;
  /** Set false to not list (e.g. until the user connects). Default true. */
  enabled?: boolean;
}

/**
 * The tools of an MCP server as a TanStack query of `server.listTools()` (key
 * `switchboardQueryKeys.mcpTools(server)`; the query's `signal` is passed on). The query is
 * invalidated whenever the server's snapshot gets a different `tools` list — i.e. when the core
 * re-lists after `notifications/tools/list_changed` — so the UI follows the server.
 *
 * @throws SwitchboardError `invalid_input` when `server` is missing or there is no query client.
 */
export function useMcpTools(
  server: McpServerLike,
  options: UseMcpToolsOptions = {},
): UseQueryResult<McpToolDescriptor[]> {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpTools needs an McpServer argument.');
  }
  const queryClient = useResolvedQueryClient(options.queryClient, 'useMcpTools');
  const queryKey = switchboardQueryKeys.mcpTools(server);
  useEffect(() => {
    const key = switchboardQueryKeys.mcpTools(server);
    let seen = server.getSnapshot().tools;
    return server.subscribe(() => {
      const tools = server.getSnapshot().tools;
      if (tools === seen) return;
      seen = tools;
      // Our own listing puts the same array in the snapshot and the cache: nothing to refetch.
      if (tools !== undefined && tools !== queryClient.getQueryData(key)) {
        void queryClient.invalidateQueries({ queryKey: key });
      }
    });
  }, [server, queryClient]);
  return useQuery(
    {
      queryKey,
      queryFn: ({ signal }) => server.listTools({ signal }),
      enabled: options.enabled ?? true,
    },
    queryClient,
  );
}
