import { Agent, MemoryHistoryStore } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { cleanup, renderHook } from '@testing-library/react';
import { useContext, type ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardContext } from './switchboard-context.ts';
import { SwitchboardProvider } from './switchboard-provider.tsx';

const agent = new Agent({
  name: 'test',
  model: openaiChatModel({
    baseURL: 'http://127.0.0.1:9/v1',
    model: 'x',
    apiKey: 'x',
    maxRetries: 0,
  }),
});

describe('SwitchboardProvider', () => {
  afterEach(() => {
    cleanup();
  });

  it('creates one QueryClient when none is given, and provides it to TanStack Query too', () => {
    const { result, rerender } = renderHook(
      () => ({ context: useContext(SwitchboardContext), query: useQueryClient() }),
      {
        wrapper: ({ children }: { children: ReactNode }) => (
          <SwitchboardProvider>{children}</SwitchboardProvider>
        ),
      },
    );
    const first = result.current.context.queryClient;
    expect(first).toBeInstanceOf(QueryClient);
    expect(result.current.query).toBe(first);
    rerender();
    expect(result.current.context.queryClient).toBe(first);
  });

  it('uses the given client, else an enclosing QueryClientProvider client', () => {
    const given = new QueryClient();
    const outer = new QueryClient();
    const withGiven = renderHook(() => useContext(SwitchboardContext), {
      wrapper: ({ children }: { children: ReactNode }) => (
        <SwitchboardProvider queryClient={given}>{children}</SwitchboardProvider>
      ),
    });
    expect(withGiven.result.current.queryClient).toBe(given);
    const withOuter = renderHook(() => useContext(SwitchboardContext), {
      wrapper: ({ children }: { children: ReactNode }) => (
        <QueryClientProvider client={outer}>
          <SwitchboardProvider>{children}</SwitchboardProvider>
        </QueryClientProvider>
      ),
    });
    expect(withOuter.result.current.queryClient).toBe(outer);
  });

  it('lets a nested provider inherit what it does not set', () => {
    const history = new MemoryHistoryStore();
    const { result } = renderHook(() => useContext(SwitchboardContext), {
      wrapper: ({ children }: { children: ReactNode }) => (
        <SwitchboardProvider agent={agent}>
          <SwitchboardProvider history={history}>{children}</SwitchboardProvider>
        </SwitchboardProvider>
      ),
    });
    expect(result.current.agent).toBe(agent);
    expect(result.current.history).toBe(history);
  });
});
