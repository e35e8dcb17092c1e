import { mcpServer } from '@switchboard/core';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeMcpServer } from './fake-mcp-server-test-support.ts';
import { SwitchboardProvider } from './switchboard-provider.tsx';
import { useMcpTools } from './use-mcp-tools.ts';

const newClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

describe('useMcpTools', () => {
  let demo: DemoServer | undefined;
  afterEach(async () => {
    cleanup();
    vi.restoreAllMocks();
    await demo?.close();
    demo = undefined;
  });

  it('lists the tools once, and refetches when the server snapshot gets a new list (list_changed)', async () => {
    const server = new FakeMcpServer(['search', 'fetch']);
    const queryClient = newClient();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider queryClient={queryClient}>{children}</SwitchboardProvider>
    );
    const { result } = renderHook(() => useMcpTools(server), { wrapper });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(result.current.data?.map((tool) => tool.name)).toEqual(['search', 'fetch']);
    // The first listing put the same array into the snapshot: no second fetch.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(result.current.isFetching).toBe(false);
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');

    act(() => server.relist(['search', 'fetch', 'summarise']));
    await waitFor(() =>
      expect(result.current.data?.map((tool) => tool.name)).toEqual([
        'search',
        'fetch',
        'summarise',
      ]),
    );
    expect(invalidate).toHaveBeenCalledOnce();
  });

  it('uses an explicit query client over the context one', async () => {
    const server = new FakeMcpServer(['a']);
    const explicit = newClient();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={newClient()}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useMcpTools(server, { queryClient: explicit }), {
      wrapper,
    });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(explicit.getQueryCache().getAll()).toHaveLength(1);
  });

  it('does not list while disabled', async () => {
    const server = new FakeMcpServer(['a']);
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={newClient()}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useMcpTools(server, { enabled: false }), { wrapper });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(result.current.fetchStatus).toBe('idle');
    expect(server.listCalls).toBe(0);
  });

  it('starts from the tools already in the server snapshot, without a loading state', async () => {
    const server = new FakeMcpServer(['search', 'fetch']);
    const listed = await server.listTools();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={newClient()}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useMcpTools(server), { wrapper });
    expect(result.current.isSuccess).toBe(true);
    // The very array the server listed: nothing copied, nothing listed twice.
    expect(result.current.data).toBe(listed);
    await waitFor(() => expect(result.current.isFetching).toBe(false));
    expect(server.listCalls).toBe(1);
  });

  it('while disabled, shows the tools the server lists for someone else, and follows list changes', async () => {
    const server = new FakeMcpServer(['search']);
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={newClient()}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useMcpTools(server, { enabled: false }), { wrapper });
    expect(result.current.data).toBeUndefined();
    // Something else owns the connection (an app's registry) and lists.
    await act(async () => {
      await server.listTools();
    });
    await waitFor(() => expect(result.current.data?.map((tool) => tool.name)).toEqual(['search']));
    act(() => server.relist(['search', 'summarise']));
    await waitFor(() =>
      expect(result.current.data?.map((tool) => tool.name)).toEqual(['search', 'summarise']),
    );
    expect(result.current.fetchStatus).toBe('idle');
    expect(server.listCalls).toBe(1);
  });

  it('lists the tools of a real MCP server', async () => {
    demo = await startDemoServer({ toolCount: 0 });
    const server = mcpServer({ url: demo.modernUrl, name: 'demo' });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={newClient()}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useMcpTools(server), { wrapper });
    await waitFor(() => expect(result.current.isSuccess).toBe(true), { timeout: 10_000 });
    expect(result.current.data?.map((tool) => tool.originalName)).toContain('book_table');
    await server.close();
  });

  it('throws a clear error without a query client', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => renderHook(() => useMcpTools(new FakeMcpServer([])))).toThrow(
      /useMcpTools needs a QueryClient/,
    );
  });
});
