import { Agent, MemoryHistoryStore, type ChatMessage } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useAgent } from './use-agent.ts';

/** Each message as `role: text`, with `[index+1/count]` on a run's first message. */
function shown(messages: readonly ChatMessage[]): string[] {
  return messages.map((message) => {
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    const branch =
      message.branch === undefined ? '' : ` [${message.branch.index + 1}/${message.branch.count}]`;
    return `${message.role}: ${text.join(' ')}${branch}`;
  });
}

describe('useAgent branches', () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    cleanup();
    await server?.close();
  });

  it('edits, regenerates and switches branches; a remount shows the selected branch', async () => {
    server = await startScriptedModelServer({
      script: scriptFromReplies([{ text: 'Paris.' }, { text: 'Rome.' }, { text: 'Rome!' }]),
    });
    const history = new MemoryHistoryStore();
    const makeAgent = () =>
      new Agent({
        name: 'branches',
        model: openaiChatModel({
          baseURL: `${server?.url}/v1`,
          model: 'scripted',
          apiKey: 'x',
          maxRetries: 0,
        }),
        history,
      });
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent, { threadId: 't' }));
    await act(async () => {
      await result.current.send('Capital of France?');
    });
    const france = result.current.messages[0]?.runId ?? '';
    await act(async () => {
      await result.current.edit(france, 'Capital of Italy?');
    });
    expect(shown(result.current.messages)).toEqual([
      'user: Capital of Italy? [2/2]',
      'assistant: Rome.',
    ]);
    const italy = result.current.messages[1]?.runId ?? '';
    await act(async () => {
      await result.current.regenerate(italy);
    });
    expect(shown(result.current.messages)).toEqual([
      'user: Capital of Italy? [3/3]',
      'assistant: Rome!',
    ]);
    const siblings = result.current.messages[0]?.branch?.siblings ?? [];
    await act(async () => {
      await result.current.switchBranch(siblings[1] ?? '');
    });
    expect(shown(result.current.messages)).toEqual([
      'user: Capital of Italy? [2/3]',
      'assistant: Rome.',
    ]);
    expect(result.current.status).toBe('idle');

    cleanup();
    const reloadedAgent = makeAgent();
    const remounted = renderHook(() => useAgent(reloadedAgent, { threadId: 't' }));
    await waitFor(() =>
      expect(shown(remounted.result.current.messages)).toEqual([
        'user: Capital of Italy? [2/3]',
        'assistant: Rome.',
      ]),
    );
    expect(server.requests).toHaveLength(3);
  });
});
