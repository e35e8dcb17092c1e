import { SwitchboardError } from '@switchboard/core';
import { QueryClientContext, type QueryClient } from '@tanstack/react-query';
import { useContext } from 'react';
import { SwitchboardContext } from './switchboard-context.ts';

/**
 * The query client a hook uses: the explicit one, else the {@link SwitchboardProvider}'s, else
 * the nearest `QueryClientProvider`'s. With `required: false`, `undefined` when there is none.
 *
 * @throws SwitchboardError `invalid_input` when required and there is none.
 */
export function useResolvedQueryClient(
  explicit: QueryClient | undefined,
  hookName: string,
  required: false,
): QueryClient | undefined;
export function useResolvedQueryClient(
  explicit: QueryClient | undefined,
  hookName: string,
  required?: true,
): QueryClient;
export function useResolvedQueryClient(
  explicit: QueryClient | undefined,
  hookName: string,
  required = true,
): QueryClient | undefined {
  const fromSwitchboard = useContext(SwitchboardContext).queryClient;
  const fromQuery = useContext(QueryClientContext);
  const client = explicit ?? fromSwitchboard ?? fromQuery;
  if (client === undefined && required) {
    throw new SwitchboardError(
      'invalid_input',
      `${hookName} needs a QueryClient: pass { queryClient }, or render it inside <SwitchboardProvider> or a <QueryClientProvider>.`,
    );
  }
  return client;
}
