import {
  SwitchboardError,
  type McpCompletion,
  type McpCompletionReference,
  type McpPrompt,
} from '@switchboard/core';
import { useQuery, type QueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useInvalidateOnListChange } from './follow-list-version.ts';
import type { McpPromptServerLike } from './mcp-content-server-like.ts';
import { switchboardQueryKeys } from './query-keys.ts';
import { useResolvedQueryClient } from './use-resolved-query-client.ts';

/** Options of {@link useMcpPrompts} and {@link useMcpCompletion}. */
export interface UseMcpPromptsOptions {
  /** Default: the provider's, else the nearest `QueryClientProvider`'s. */
  queryClient?: QueryClient;
  /** Set false to not ask the server. Default true. */
  enabled?: boolean;
}

/**
 * The prompts of an MCP server as a TanStack query of `server.listPrompts()` (key
 * `switchboardQueryKeys.mcpPrompts(server)`), refetched when the server says its prompt list
 * changed (`promptListVersion` of its snapshot). Get one with `server.getPrompt(name, args)`.
 *
 * @throws SwitchboardError `invalid_input` when `server` is missing or there is no query client.
 */
export function useMcpPrompts(
  server: McpPromptServerLike,
  options: UseMcpPromptsOptions = {},
): UseQueryResult<McpPrompt[]> {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpPrompts needs an McpServer argument.');
  }
  const queryClient = useResolvedQueryClient(options.queryClient, 'useMcpPrompts');
  const queryKey = switchboardQueryKeys.mcpPrompts(server);
  useInvalidateOnListChange(server, queryClient, queryKey, promptListVersion);
  return useQuery(
    {
      queryKey,
      queryFn: ({ signal }) => server.listPrompts({ signal }),
      enabled: options.enabled ?? true,
    },
    queryClient,
  );
}

/**
 * Suggestions for the value being typed into a prompt argument or resource template variable,
 * as a TanStack query of `server.complete(ref, argument, { context })` (`completion/complete`),
 * keyed by the value: each keystroke is one query, an older one's answer never replaces a newer
 * one's, and the previous suggestions stay shown while the next load (`placeholderData`).
 * `argument` undefined: nothing is asked.
 *
 * @param context The other arguments filled in so far.
 * @throws SwitchboardError `invalid_input` when `server` is missing or there is no query client.
 */
export function useMcpCompletion(
  server: McpPromptServerLike,
  ref: McpCompletionReference,
  argument: { name: string; value: string } | undefined,
  context?: Record<string, string>,
  options: UseMcpPromptsOptions = {},
): UseQueryResult<McpCompletion> {
  if (server === undefined || server === null) {
    throw new SwitchboardError('invalid_input', 'useMcpCompletion needs an McpServer argument.');
  }
  const queryClient = useResolvedQueryClient(options.queryClient, 'useMcpCompletion');
  const asked = argument ?? { name: '', value: '' };
  return useQuery(
    {
      queryKey: switchboardQueryKeys.mcpCompletion(server, ref, asked, context),
      queryFn: ({ signal }) =>
        server.complete(ref, asked, {
          signal,
          ...(context === undefined ? {} : { context }),
        }),
      enabled: (options.enabled ?? true) && argument !== undefined,
      placeholderData: (previous) => previous,
    },
    queryClient,
  );
}

function promptListVersion(snapshot: { promptListVersion?: number }): number | undefined {
  return snapshot.promptListVersion;
}
