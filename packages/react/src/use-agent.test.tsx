import { Agent, MemoryHistoryStore, tool } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/core/testing';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useAgent } from './use-agent.ts';

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
    await model.close();
  });

  const makeAgent = () =>
    new Agent({
      name: 'test',
      model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
      tools: [getSum],
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

  it('reports a failed run as status error with the error, and recovers on the next send', async () => {
    await model.close();
    model = await startScriptedModelServer({
      script: scriptFromReplies([{ status: 500, error: 'boom' }, { text: 'fine now' }]),
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
    let outcome: string | undefined;
    await act(async () => {
      const sending = result.current.send('talk slowly');
      await waitFor(() => expect(result.current.status).toBe('streaming'));
      result.current.stop();
      outcome = (await sending).status;
    });
    expect(outcome).toBe('cancelled');
    expect(result.current.status).toBe('idle');
  });
});
