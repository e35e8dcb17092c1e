import type { AgentEndpoint, AgentThreads } from '@switchboard/core';
import { QueryClient, QueryClientContext, QueryClientProvider } from '@tanstack/react-query';
import { useContext, useMemo, useState, type ReactNode } from 'react';
import { SwitchboardContext, type SwitchboardContextValue } from './switchboard-context.ts';

/** Props of {@link SwitchboardProvider}. */
export interface SwitchboardProviderProps {
  /**
   * The default agent of `useAgent()`: an `Agent`, or any `AgentEndpoint` (`remoteAgent({ url })`
   * for one that runs on a server). Pass a stable instance (created once).
   */
  agent?: AgentEndpoint;
  /** The default history of `useThreads()`; else the agent's history. */
  history?: AgentThreads;
  /**
   * The query client for the query hooks. Default: the client of an enclosing
   * `QueryClientProvider`, else one this provider creates (once, on mount).
   */
  queryClient?: QueryClient;
  children?: ReactNode;
}

/**
 * Gives the Switchboard hooks their defaults (agent, history, query client) and provides the
 * query client to TanStack Query. Nested providers inherit what they do not set. Every hook
 * also takes its dependencies as arguments; an explicit argument wins over the provider.
 *
 * ```tsx
 * <SwitchboardProvider agent={agent}>
 *   <Chat />
 * </SwitchboardProvider>
 * ```
 */
export function SwitchboardProvider(props: SwitchboardProviderProps): ReactNode {
  const parent = useContext(SwitchboardContext);
  const outerQueryClient = useContext(QueryClientContext);
  // Created lazily once; unused (and cheap: no timers or listeners) when another client exists.
  const [ownQueryClient] = useState(() => new QueryClient());
  const queryClient = props.queryClient ?? parent.queryClient ?? outerQueryClient ?? ownQueryClient;
  const agent = props.agent ?? parent.agent;
  const history = props.history ?? parent.history;
  const value = useMemo(() => {
    const next: SwitchboardContextValue = { queryClient };
    if (agent !== undefined) next.agent = agent;
    if (history !== undefined) next.history = history;
    return next;
  }, [agent, history, queryClient]);
  return (
    <SwitchboardContext.Provider value={value}>
      <QueryClientProvider client={queryClient}>{props.children}</QueryClientProvider>
    </SwitchboardContext.Provider>
  );
}
