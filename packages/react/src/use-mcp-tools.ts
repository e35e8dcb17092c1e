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
  /**
   * Set false to not list: until the user connects, or when something else owns the connection
   * and lists (an app's server registry, an agent run). A disabled query still follows the
   * server: the tools in its snapshot, whoever listed them, become the query's data. Default
   * true.
   */
  enabled?: boolean;
}

/**
 * The tools of an MCP server as a TanStack query of `server.listTools()` (key
 * `switchboardQueryKeys.mcpTools(server)`; the query's `signal` is passed on). The query is
 * invalidated whenever the server's snapshot gets a different `tools` list — i.e. when the core
 * re-lists after `notifications/tools/list_changed` — so the UI follows the server. Tools the
 * snapshot already holds are the query's initial data: no loading state for a listed server.
 * With `enabled: false` the hook never lists; it shows the snapshot's tools.
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
  const enabled = options.enabled ?? true;
  useEffect(() => {
    const key = switchboardQueryKeys.mcpTools(server);
    // `subscribe` is called as a method: it works whether or not the server binds it.
    if (!enabled) {
      // Not listing ourselves: the query shows the tools the server listed for someone else.
      const follow = (): void => {
        const tools = listedTools(server);
        if (tools !== undefined && tools !== queryClient.getQueryData(key)) {
          queryClient.setQueryData(key, tools);
        }
      };
      follow(); // a listing that came between the render and this subscription
      return server.subscribe(follow);
    }
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
  }, [server, queryClient, enabled]);
  return useQuery(
    {
      queryKey,
      queryFn: ({ signal }) => server.listTools({ signal }),
      initialData: () => listedTools(server),
      enabled,
    },
    queryClient,
  );
}

/**
 * The tools in the server's snapshot. The core puts the very array `listTools()` returned there
 * (typed readonly); it is passed on as that array, not a copy, so that the identity checks
 * above can tell "already in the cache" from "a new listing".
 */
function listedTools(server: McpServerLike): McpToolDescriptor[] | undefined {
  return server.getSnapshot().tools as McpToolDescriptor[] | undefined;
}
