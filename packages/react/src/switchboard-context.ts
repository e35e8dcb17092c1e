import type { AgentEndpoint, AgentThreads } from '@switchboard/core';
import type { QueryClient } from '@tanstack/react-query';
import { createContext } from 'react';

/** What {@link SwitchboardProvider} puts in context for the hooks. Every field is optional. */
export interface SwitchboardContextValue {
  /** The agent `useAgent()` uses when none is passed. */
  agent?: AgentEndpoint;
  /** The history `useThreads()` uses when none is passed (else the agent's history). */
  history?: AgentThreads;
  /** The query client of `useMcpTools()` / `useThreads()` when none is passed. */
  queryClient?: QueryClient;
}

/**
 * The context behind {@link SwitchboardProvider}. Read it with `useContext` only to build your own
 * hooks; the library hooks resolve their dependencies from it (an explicit argument wins).
 */
export const SwitchboardContext = createContext<SwitchboardContextValue>({});
