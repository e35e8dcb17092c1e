import { Agent, MemoryHistoryStore, tool } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { SwitchboardProvider } from './switchboard-provider.tsx';
import { useAgent } from './use-agent.ts';

const removed: string[] = [];
const removeFile = tool({
  name: 'remove_file',
  description: 'Removes a file',
  input: z.object({ path: z.string() }),
  needsApproval: true,
  annotations: { destructiveHint: true },
  execute: ({ path }) => {
    removed.push(path);
    return `Removed ${path}.`;
  },
});

const getSum = tool({
  name: 'get-sum',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => `The sum of ${a} and ${b} is ${a + b}.`,
});

describe('useAgent', () => {
  let model: ScriptedModelServer;
  let history: MemoryHistoryStore;

  beforeEach(async () => {
    model = await startScriptedModelServer();
    history = new MemoryHistoryStore();
  });
  afterEach(async () => {
    cleanup();
    vi.unstubAllGlobals();
    await model.close();
  });

  const restart = async (replies: Parameters<typeof scriptFromReplies>[0]) => {
    await model.close();
    model = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  };

  const makeAgent = () =>
    new Agent({
      name: 'test',
      model: openaiChatModel({
        baseURL: `${model.url}/v1`,
        model: 'scripted',
        apiKey: 'x',
        maxRetries: 0,
      }),
      tools: [getSum, removeFile],
      history,
    });

  it('streams a tool call and the answer into messages, then returns to idle', async () => {
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent, { threadId: 't1' }));
    const statuses = new Set<string>();
    await act(async () => {
      const sending = result.current.send('what is 2 plus 3?');
      statuses.add(result.current.status);
      await sending;
    });
    expect(result.current.status).toBe('idle');
    const [user, assistant] = result.current.messages;
    expect(user?.parts).toEqual([{ type: 'text', text: 'what is 2 plus 3?' }]);
    const call = assistant?.parts.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({
      toolName: 'get-sum',
      arguments: { a: 2, b: 3 },
      state: 'done',
      output: { text: 'The sum of 2 and 3 is 5.' },
    });
    const text = assistant?.parts.find((part) => part.type === 'text');
    expect(text).toMatchObject({ text: 'The tool returned: The sum of 2 and 3 is 5.' });
  });

  it('shows the stored thread after a remount with a new agent over the same history', async () => {
    const firstAgent = makeAgent();
    const first = renderHook(() => useAgent(firstAgent, { threadId: 'kept' }));
    await act(async () => {
      await first.result.current.send('hello');
    });
    first.unmount();

    const agent = makeAgent();
    const second = renderHook(() => useAgent(agent, { threadId: 'kept' }));
    await waitFor(() => expect(second.result.current.messages).toHaveLength(2));
    expect(second.result.current.messages[0]?.parts[0]).toEqual({ type: 'text', text: 'hello' });
    expect(second.result.current.threadId).toBe('kept');
  });

  it('keeps its chat across re-renders, and switches to a new chat when threadId or agent changes', async () => {
    const agent = makeAgent();
    const { result, rerender } = renderHook(
      ({ current, threadId }: { current: Agent; threadId: string }) =>
        useAgent(current, { threadId }),
      { initialProps: { current: agent, threadId: 'one' } },
    );
    await act(async () => {
      await result.current.send('hello');
    });
    const send = result.current.send;

    rerender({ current: agent, threadId: 'one' });
    expect(result.current.send).toBe(send);
    expect(result.current.messages).toHaveLength(2);

    rerender({ current: agent, threadId: 'two' });
    expect(result.current.threadId).toBe('two');
    expect(result.current.send).not.toBe(send);
    expect(result.current.messages).toEqual([]);
    await waitFor(() => expect(result.current.status).toBe('idle'));

    rerender({ current: agent, threadId: 'one' });
    await waitFor(() => expect(result.current.messages).toHaveLength(2));
    const reloaded = result.current.send;

    rerender({ current: makeAgent(), threadId: 'one' });
    expect(result.current.send).not.toBe(reloaded);
    await waitFor(() => expect(result.current.messages).toHaveLength(2));
  });

  it('reports a failed run as status error with the error, and recovers on the next send', async () => {
    await model.close();
    model = await startScriptedModelServer({
      script: scriptFromReplies([{ status: 400, error: 'boom' }, { text: 'fine now' }]),
    });
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent));
    await act(async () => {
      await result.current.send('first');
    });
    expect(result.current.status).toBe('error');
    expect(result.current.error?.code).toBe('model_error');
    await act(async () => {
      await result.current.send('second');
    });
    expect(result.current.status).toBe('idle');
    expect(result.current.error).toBeUndefined();
    expect(result.current.messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'fine now' }]);
  });

  it('stop() cancels a streaming answer', async () => {
    await model.close();
    model = await startScriptedModelServer({
      script: scriptFromReplies([
        { text: 'one two three four five six seven eight', delayMs: 200 },
      ]),
    });
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent));
    let sending: Promise<{ status: string }> | undefined;
    act(() => {
      sending = result.current.send('talk slowly');
    });
    await waitFor(() => expect(result.current.status).toBe('streaming'));
    let outcome: string | undefined;
    await act(async () => {
      result.current.stop();
      outcome = (await sending)?.status;
    });
    expect(outcome).toBe('cancelled');
    expect(result.current.status).toBe('idle');
  });

  it('exposes modelRetry while a rate-limited model call waits, and clears it on stop', async () => {
    await restart([
      { status: 429, error: 'Slow down.', headers: { 'retry-after': '60' } },
      { text: 'never asked' },
    ]);
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent));
    expect(result.current.modelRetry).toBeUndefined();
    let sending: Promise<{ status: string }> | undefined;
    act(() => {
      sending = result.current.send('hi');
    });
    await waitFor(() => expect(result.current.modelRetry).toBeDefined());
    const retry = result.current.modelRetry;
    expect(retry).toMatchObject({
      kind: 'retry',
      model: 'openai-chat/scripted',
      attempt: 2,
      maxAttempts: 3,
      // The provider's 60 s, cut to the policy's default maxDelayMs.
      delayMs: 30_000,
      code: 'model_error',
      status: 429,
    });
    expect(retry?.reason).toContain('Slow down.');
    expect(retry?.retryAt).toBeGreaterThan(Date.now());
    expect(result.current.status).toBe('streaming');
    let outcome: string | undefined;
    await act(async () => {
      result.current.stop();
      outcome = (await sending)?.status;
    });
    expect(outcome).toBe('cancelled');
    expect(result.current.modelRetry).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });

  it('exposes interrupts, and approve() runs the held call and finishes the run', async () => {
    await restart([
      { toolCalls: [{ name: 'remove_file', arguments: { path: 'a.txt' }, id: 'call_rm' }] },
      { text: 'Removed it.' },
    ]);
    removed.length = 0;
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent, { threadId: 'approve' }));
    await act(async () => {
      await result.current.send('remove a.txt');
    });
    expect(result.current.status).toBe('paused');
    expect(result.current.interrupts).toMatchObject([
      {
        callId: 'call_rm',
        toolName: 'remove_file',
        mode: 'approval',
        arguments: { path: 'a.txt' },
      },
    ]);
    expect(removed).toEqual([]);
    await act(async () => {
      await result.current.approve('call_rm');
    });
    expect(removed).toEqual(['a.txt']);
    expect(result.current.status).toBe('idle');
    expect(result.current.interrupts).toEqual([]);
    expect(result.current.messages.at(-1)?.parts.at(-1)).toEqual({
      type: 'text',
      text: 'Removed it.',
    });
  });

  it('reject() refuses the held call without running it; resolve() takes any action', async () => {
    await restart([
      { toolCalls: [{ name: 'remove_file', arguments: { path: 'b.txt' }, id: 'call_b' }] },
      { text: 'Understood.' },
    ]);
    removed.length = 0;
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent));
    await act(async () => {
      await result.current.send('remove b.txt');
    });
    await act(async () => {
      await result.current.resolve('call_b', 'reject');
    });
    expect(removed).toEqual([]);
    expect(result.current.status).toBe('idle');
    const call = result.current.messages
      .flatMap((message) => message.parts)
      .find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({ callId: 'call_b', state: 'error' });
  });

  it('commits at most once per animation frame while streaming many deltas', async () => {
    const words = Array.from({ length: 150 }, (_, index) => `w${index}`);
    await restart([{ text: words.join(' '), delayMs: 1 }]);
    let framesRun = 0;
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) =>
      setTimeout(() => {
        framesRun += 1;
        callback(performance.now());
      }, 16),
    );
    vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
    const agent = makeAgent();
    let renders = 0;
    const { result } = renderHook(() => {
      renders += 1;
      return useAgent(agent);
    });
    await waitFor(() => expect(result.current.status).toBe('idle'));

    // Outside act(): React renders when the store says so, as in a browser.
    const actEnvironment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined };
    const previous = actEnvironment.IS_REACT_ACT_ENVIRONMENT;
    actEnvironment.IS_REACT_ACT_ENVIRONMENT = false;
    try {
      const rendersBefore = renders;
      const framesBefore = framesRun;
      const outcome = await result.current.send('talk');
      await waitFor(() => expect(result.current.status).toBe('idle'));
      expect(outcome.status).toBe('completed');
      const streamRenders = renders - rendersBefore;
      const frames = framesRun - framesBefore;
      // One render per frame at most, plus the urgent ones: streaming starts, run ends.
      expect(streamRenders).toBeLessThanOrEqual(frames + 3);
      expect(streamRenders).toBeLessThan(words.length / 3);
      expect(result.current.messages.at(-1)?.parts).toEqual([
        { type: 'text', text: words.join(' ') },
      ]);
    } finally {
      actEnvironment.IS_REACT_ACT_ENVIRONMENT = previous;
    }
  });

  it('folds the streamed text into messages at each frame, before the run ends', async () => {
    const words = Array.from({ length: 10 }, (_, index) => `w${index}`);
    await restart([{ text: words.join(' '), delayMs: 50 }]);
    // Frames run only when the test says: the text between them is held in the chat.
    let frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
      frames.push(callback);
      return frames.length;
    });
    vi.stubGlobal('cancelAnimationFrame', () => undefined);
    const runFrames = () => {
      const due = frames;
      frames = [];
      for (const callback of due) callback(performance.now());
    };
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent));
    await waitFor(() => expect(result.current.status).toBe('idle'));
    const textShown = () => {
      const part = result.current.messages.at(-1)?.parts[0];
      return result.current.messages.length === 2 && part?.type === 'text' ? part.text : '';
    };

    const actEnvironment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined };
    const previous = actEnvironment.IS_REACT_ACT_ENVIRONMENT;
    actEnvironment.IS_REACT_ACT_ENVIRONMENT = false;
    try {
      const sent = result.current.send('talk');
      await waitFor(() => {
        runFrames();
        expect(textShown()).not.toBe('');
      });
      // A frame showed part of the answer while it still streamed (the chat folded its held
      // deltas for that frame), in order.
      expect(result.current.status).toBe('streaming');
      expect(words.join(' ').startsWith(textShown())).toBe(true);
      expect((await sent).status).toBe('completed');
      await waitFor(() => expect(result.current.status).toBe('idle'));
      expect(textShown()).toBe(words.join(' '));
    } finally {
      actEnvironment.IS_REACT_ACT_ENVIRONMENT = previous;
    }
  });

  it('flushes the end of a run at once even when no animation frame ever comes', async () => {
    await restart([{ text: 'all of this text arrives' }]);
    vi.stubGlobal('requestAnimationFrame', () => 1);
    vi.stubGlobal('cancelAnimationFrame', () => undefined);
    const agent = makeAgent();
    const { result } = renderHook(() => useAgent(agent));
    await act(async () => {
      await result.current.send('hi');
    });
    expect(result.current.status).toBe('idle');
    expect(result.current.messages.at(-1)?.parts).toEqual([
      { type: 'text', text: 'all of this text arrives' },
    ]);
  });

  it('uses the provider agent when none is passed; an explicit agent wins; neither throws', async () => {
    const fromContext = makeAgent();
    const explicit = makeAgent();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <SwitchboardProvider agent={fromContext}>{children}</SwitchboardProvider>
    );
    await act(async () => {
      await fromContext.execute({ threadId: 'ctx', messages: 'hello' }).result();
    });
    const viaContext = renderHook(() => useAgent({ threadId: 'ctx' }), { wrapper });
    await waitFor(() => expect(viaContext.result.current.messages).toHaveLength(2));

    const viaArgument = renderHook(() => useAgent(explicit, { threadId: 'other' }), { wrapper });
    await act(async () => {
      await viaArgument.result.current.send('hello again');
    });
    expect((await history.loadRuns('other')).length).toBe(1);

    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => renderHook(() => useAgent())).toThrow(/useAgent needs an agent/);
  });
});
