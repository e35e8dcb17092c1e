import {
  SwitchboardError,
  type McpResource,
  type McpResourceContents,
  type McpResourceTemplate,
} from '@switchboard/core';
import { useQuery, type QueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useInvalidateOnListChange } from './follow-list-version.ts';
import type { McpResourceServerLike } from './mcp-content-server-like.ts';
import { switchboardQueryKeys } from './query-keys.ts';
import { useResolvedQueryClient } from './use-resolved-query-client.ts';

/** Options of {@link useMcpResources} and {@link useMcpResource}. */
export interface UseMcpResourcesOptions {
  /** Default: the provider's, else the nearest `QueryClientProvider`'s. */
  queryClient?: QueryClient;
  /** Set false to not ask the server (e.g. until the user connects). Default true. */
  enabled?: boolean;
}

/** What {@link useMcpResources} lists. */
export interface McpResourceListing {
  resources: McpResource[];
  templates: McpResourceTemplate[];
}

/**
 * The resources and resource templates of an MCP server, as one TanStack query of
 * `server.listResources()` and `server.listResourceTemplates()` (key
 * `switchboardQueryKeys.mcpResources(server)`; the query's `signal` is passed on). Refetched
 * when the server says its resource list changed (`resourceListVersion` of its snapshot, from
 * `notifications/resources/list_changed`).
 *
 * @throws SwitchboardError `invalid_input` when `server` is missing or there is no query client.
 */
export function useMcpResources(
  server: McpResourceServerLike,
  options: UseMcpResourcesOptions = {},
): UseQueryResult<McpResourceListing> {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpResources needs an McpServer argument.');
  }
  const queryClient = useResolvedQueryClient(options.queryClient, 'useMcpResources');
  const queryKey = switchboardQueryKeys.mcpResources(server);
  useInvalidateOnListChange(server, queryClient, queryKey, resourceListVersion);
  return useQuery(
    {
      queryKey,
      queryFn: async ({ signal }) => {
        const [resources, templates] = await Promise.all([
          server.listResources({ signal }),
          server.listResourceTemplates({ signal }),
        ]);
        return { resources, templates };
      },
      enabled: options.enabled ?? true,
    },
    queryClient,
  );
}

/** Options of {@link useMcpResource}. */
export interface UseMcpResourceOptions extends UseMcpResourcesOptions {
  /**
   * Subscribe to the resource (`McpServer.subscribeResource`) while mounted, and refetch when
   * the server says it changed. A server that offers no subscription leaves the data as read
   * (the failure is not an error of the query). Default false.
   */
  subscribe?: boolean;
  /** Largest body inlined, in bytes (see `McpServer.readResource`). Default the server's. */
  maxBytes?: number;
}

/**
 * One resource's bodies as a TanStack query of `server.readResource(uri)` (key
 * `switchboardQueryKeys.mcpResource(server, uri)`), each with its MIME type and size; a body
 * over the size limit comes as `omitted: 'too_large'`. With `subscribe`, refetched on
 * `notifications/resources/updated`. `uri` undefined: nothing is read.
 *
 * @throws SwitchboardError `invalid_input` when `server` is missing or there is no query client.
 */
export function useMcpResource(
  server: McpResourceServerLike,
  uri: string | undefined,
  options: UseMcpResourceOptions = {},
): UseQueryResult<McpResourceContents[]> {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpResource needs an McpServer argument.');
  }
  const queryClient = useResolvedQueryClient(options.queryClient, 'useMcpResource');
  const enabled = (options.enabled ?? true) && uri !== undefined;
  const subscribe = options.subscribe === true && enabled;
  const { maxBytes } = options;
  useEffect(() => {
    if (!subscribe || uri === undefined) return undefined;
    let closed = false;
    let close: (() => Promise<void>) | undefined;
    server
      .subscribeResource(uri, () => {
        void queryClient.invalidateQueries({
          queryKey: switchboardQueryKeys.mcpResource(server, uri),
        });
      })
      .then(
        (subscription) => {
          if (closed) void subscription.close();
          else close = () => subscription.close();
        },
        () => {
          // No subscriptions on this server: the data stays as read.
        },
      );
    return () => {
      closed = true;
      void close?.();
    };
  }, [server, queryClient, uri, subscribe]);
  return useQuery(
    {
      queryKey: switchboardQueryKeys.mcpResource(server, uri ?? ''),
      queryFn: ({ signal }) =>
        server.readResource(uri ?? '', {
          signal,
          ...(maxBytes === undefined ? {} : { maxBytes }),
        }),
      enabled,
    },
    queryClient,
  );
}

function resourceListVersion(snapshot: { resourceListVersion?: number }): number | undefined {
  return snapshot.resourceListVersion;
}
