import {
  Agent,
  MemoryHistoryStore,
  remoteAgent,
  tool,
  type AgentEndpoint,
} from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { agentRequestHandler } from '@switchboard/core/server';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SwitchboardProvider } from './switchboard-provider.tsx';
import { useAgent } from './use-agent.ts';
import { useThreads } from './use-threads.ts';

/**
 * `useAgent` and `useThreads` against an agent that runs on a server: a real `Agent` behind
 * `agentRequestHandler`, reached by `remoteAgent` through a `fetch` that calls the handler in
 * process (the HTTP wire is tested in core's `agent-server.wire.test.ts`).
 */
describe('useAgent(remoteAgent(...))', () => {
  let model: ScriptedModelServer | undefined;
  afterEach(async () => {
    cleanup();
    await model?.close();
  });

  async function serverAgent(replies: Parameters<typeof scriptFromReplies>[0]) {
    model = await startScriptedModelServer({ script: scriptFromReplies(replies) });
    const removed: string[] = [];
    const agent = new Agent({
      name: 'server',
      model: openaiChatModel({
        baseURL: `${model.url}/v1`,
        model: 'scripted',
        apiKey: 'x',
        maxRetries: 0,
      }),
      history: new MemoryHistoryStore(),
      tools: [
        tool({
          name: 'remove_file',
          description: 'Removes a file',
          input: z.object({ path: z.string() }),
          needsApproval: true,
          execute: ({ path }) => {
            removed.push(path);
            return `Removed ${path}.`;
          },
        }),
      ],
    });
    const handler = agentRequestHandler(agent);
    const remote: AgentEndpoint = remoteAgent({
      url: 'http://agent.test/',
      fetch: (input, init) => handler(new Request(input, init)),
    });
    return { remote, removed };
  }

  it('streams an answer, pauses for an approval, and resumes on approve: the tool runs once', async () => {
    const { remote, removed } = await serverAgent([
      { toolCalls: [{ id: 'call_rm', name: 'remove_file', arguments: { path: '/tmp/a' } }] },
      { text: 'Removed it.' },
    ]);
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider agent={remote}>{children}</SwitchboardProvider>
    );
    const { result } = renderHook(
      () => ({ chat: useAgent({ threadId: 'remote-1' }), threads: useThreads() }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.chat.status).toBe('idle'));
    expect(result.current.chat.serversNeedingAuth).toEqual([]);

    await act(async () => {
      await result.current.chat.send('remove /tmp/a');
    });
    expect(result.current.chat.status).toBe('paused');
    expect(result.current.chat.interrupts.map((interrupt) => interrupt.mode)).toEqual(['approval']);
    expect(removed).toEqual([]);

    await act(async () => {
      await result.current.chat.approve('call_rm');
    });
    expect(result.current.chat.status).toBe('idle');
    expect(removed).toEqual(['/tmp/a']);
    const assistant = result.current.chat.messages.at(-1);
    expect(assistant?.parts.at(-1)).toEqual({ type: 'text', text: 'Removed it.' });
    await waitFor(() =>
      expect(result.current.threads.data?.map((thread) => thread.threadId)).toEqual(['remote-1']),
    );
  });

  it('shows a reloaded thread as the server stored it', async () => {
    const { remote } = await serverAgent([{ text: 'Stored answer.' }]);
    const first = renderHook(() => useAgent(remote, { threadId: 'remote-2' }));
    await act(async () => {
      await first.result.current.send('hello');
    });
    first.unmount();
    const second = renderHook(() => useAgent(remote, { threadId: 'remote-2' }));
    await waitFor(() => expect(second.result.current.messages).toHaveLength(2));
    expect(second.result.current.messages[1]?.parts).toEqual([
      { type: 'text', text: 'Stored answer.' },
    ]);
  });
});
