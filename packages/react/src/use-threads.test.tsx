import { Agent, MemoryHistoryStore, type Model } from '@switchboard/core';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SwitchboardProvider } from './switchboard-provider.tsx';
import { startScriptedModel } from './test-support.tsx';
import { useAgent } from './use-agent.ts';
import { useThreads } from './use-threads.ts';

const newClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

async function seed(history: MemoryHistoryStore, threadId: string, text: string) {
  const now = Date.now();
  await history.saveRun({
    runId: `run-${threadId}`,
    threadId,
    status: 'completed',
    items: [{ type: 'message', role: 'user', content: text }],
    createdAt: now,
    updatedAt: now,
  });
}

describe('useThreads', () => {
  const servers: ScriptedModelServer[] = [];
  afterEach(async () => {
    cleanup();
    vi.restoreAllMocks();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('lists the threads of an explicit history and refetches on invalidate()', async () => {
    const history = new MemoryHistoryStore();
    await seed(history, 'a', 'first thread');
    const queryClient = newClient();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider queryClient={queryClient}>{children}</SwitchboardProvider>
    );
    const { result } = renderHook(() => useThreads(history), { wrapper });
    await waitFor(() =>
      expect(result.current.data?.map((thread) => thread.title)).toEqual(['first thread']),
    );

    await seed(history, 'b', 'second thread');
    await act(async () => {
      await result.current.invalidate();
    });
    await waitFor(() =>
      expect(result.current.data?.map((thread) => thread.threadId).sort()).toEqual(['a', 'b']),
    );
  });

  it('uses the provider agent history, and useAgent refreshes it when a run ends', async () => {
    const { server, model } = await startScriptedModel([{ text: 'Hello there.' }]);
    servers.push(server);
    const agent = new Agent({ name: 'test', model, history: new MemoryHistoryStore() });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider agent={agent} queryClient={newClient()}>
        {children}
      </SwitchboardProvider>
    );
    const { result } = renderHook(
      () => ({ threads: useThreads(), chat: useAgent({ threadId: 'new' }) }),
      {
        wrapper,
      },
    );
    await waitFor(() => expect(result.current.threads.data).toEqual([]));
    await act(async () => {
      await result.current.chat.send('Start a new thread');
    });
    await waitFor(() =>
      expect(result.current.threads.data).toMatchObject([
        { threadId: 'new', title: 'Start a new thread' },
      ]),
    );
  });

  it('lists a new thread from its first message, while its first run still streams', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model: Model = {
      provider: 'test',
      modelId: 'slow',
      async *stream() {
        await released;
        yield { type: 'text.delta', delta: 'Done.' };
        yield { type: 'done' };
      },
    };
    const agent = new Agent({ name: 'test', model, history: new MemoryHistoryStore() });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider agent={agent} queryClient={newClient()}>
        {children}
      </SwitchboardProvider>
    );
    const { result } = renderHook(
      () => ({ threads: useThreads(), chat: useAgent({ threadId: 'early' }) }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.threads.data).toEqual([]));
    act(() => {
      void result.current.chat.send('  A   thread listed early ');
    });

    await waitFor(() => expect(result.current.chat.status).toBe('streaming'));
    await waitFor(() =>
      expect(result.current.threads.data).toMatchObject([
        { threadId: 'early', title: 'A thread listed early' },
      ]),
    );
    expect(result.current.chat.status).toBe('streaming');

    release();
    await waitFor(() => expect(result.current.chat.status).toBe('idle'));
    await waitFor(() =>
      expect(result.current.threads.data).toMatchObject([
        { threadId: 'early', title: 'A thread listed early' },
      ]),
    );
    expect(result.current.threads.data).toHaveLength(1);
  });

  it('prefers an explicit history over the provider one', async () => {
    const inContext = new MemoryHistoryStore();
    const explicit = new MemoryHistoryStore();
    await seed(inContext, 'context', 'from context');
    await seed(explicit, 'explicit', 'from argument');
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider history={inContext}>{children}</SwitchboardProvider>
    );
    const { result } = renderHook(
      () => ({ context: useThreads(), explicit: useThreads(explicit) }),
      {
        wrapper,
      },
    );
    await waitFor(() => expect(result.current.explicit.data).toHaveLength(1));
    await waitFor(() => expect(result.current.context.data).toHaveLength(1));
    expect(result.current.explicit.data?.[0]?.threadId).toBe('explicit');
    expect(result.current.context.data?.[0]?.threadId).toBe('context');
  });

  it('throws clear errors without a history or without a query client', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider>{children}</SwitchboardProvider>
    );
    expect(() => renderHook(() => useThreads(), { wrapper })).toThrow(
      /useThreads needs a HistoryStore/,
    );
    expect(() => renderHook(() => useThreads(new MemoryHistoryStore()))).toThrow(
      /useThreads needs a QueryClient/,
    );
  });
});
