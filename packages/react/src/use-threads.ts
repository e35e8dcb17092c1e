import { SwitchboardError, type AgentThreads, type ThreadSummary } from '@switchboard/core';
import { useQuery, type QueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useCallback, useContext } from 'react';
import { switchboardQueryKeys } from './query-keys.ts';
import { SwitchboardContext } from './switchboard-context.ts';
import { useResolvedQueryClient } from './use-resolved-query-client.ts';

/** Options of {@link useThreads}. */
export interface UseThreadsOptions {
  /** Default: the provider's, else the nearest `QueryClientProvider`'s. */
  queryClient?: QueryClient;
}

/** What {@link useThreads} returns: the query, plus `invalidate()` to refetch the list. */
export type UseThreadsResult = UseQueryResult<ThreadSummary[]> & {
  /** Marks the list stale and refetches it (e.g. after renaming or deleting a thread). */
  invalidate(): Promise<void>;
};

/**
 * The threads of a history store (any {@link AgentThreads}: a `HistoryStore`, or a remote
 * agent's `history`), most recently updated first, as a TanStack query of
 * `history.listThreads()` (key `switchboardQueryKeys.threads(history)`). `useAgent` invalidates
 * it when a run ends (same query client); call `invalidate()` after your own changes.
 *
 * History: the argument, else the provider's `history`, else the provider agent's history.
 *
 * @throws SwitchboardError `invalid_input` when there is no history store or no query client.
 */
export function useThreads(
  history?: AgentThreads,
  options: UseThreadsOptions = {},
): UseThreadsResult {
  const context = useContext(SwitchboardContext);
  const store = history ?? context.history ?? context.agent?.history;
  if (store === undefined) {
    throw new SwitchboardError(
      'invalid_input',
      'useThreads needs a HistoryStore: pass one (useThreads(history)) or render inside <SwitchboardProvider history={…}> or <SwitchboardProvider agent={…}>.',
    );
  }
  const queryClient = useResolvedQueryClient(options.queryClient, 'useThreads');
  const query = useQuery(
    {
      queryKey: switchboardQueryKeys.threads(store),
      queryFn: ({ signal }) => store.listThreads({ signal }),
    },
    queryClient,
  );
  const invalidate = useCallback(
    () => queryClient.invalidateQueries({ queryKey: switchboardQueryKeys.threads(store) }),
    [queryClient, store],
  );
  return { ...query, invalidate };
}
