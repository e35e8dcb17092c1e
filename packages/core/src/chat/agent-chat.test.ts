import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent/agent.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { Model } from '../model/model.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { scriptFromReplies, type ScriptedReply } from '@switchboard/fixtures';
import { startScriptedModelServer, type ScriptedModelServer } from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import { AgentChat, type ChatSnapshot } from './agent-chat.ts';
import type { ChatMessage, ChatToolCallPart } from './chat-message.ts';

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function scripted(
  replies: ScriptedReply[],
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  servers.push(server);
  const model = openaiChatModel({
    baseURL: `${server.url}/v1`,
    apiKey: 'x',
    model: 'scripted',
    maxRetries: 0,
  });
  return { server, model };
}

/** Records every snapshot a subscriber is notified with. */
function record(chat: AgentChat): ChatSnapshot[] {
  const snapshots: ChatSnapshot[] = [];
  chat.subscribe(() => snapshots.push(chat.getSnapshot()));
  return snapshots;
}

const addTool = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    return String(a + b);
  },
});

/** Messages without their ids (live ids are random, loaded ids are positional). */
function withoutIds(messages: readonly ChatMessage[]) {
  return messages.map(({ role, parts }) => ({ role, parts }));
}

describe('AgentChat', () => {
  it('returns the same snapshot object until something changes', async () => {
    const { model } = await scripted([{ text: 'Hello.' }]);
    const chat = new AgentChat(new Agent({ name: 'test', model }), { threadId: 'thread-1' });

    const initial = chat.getSnapshot();
    expect(chat.getSnapshot()).toBe(initial);
    expect(initial).toEqual({
      threadId: 'thread-1',
      messages: [],
      status: 'idle',
      interrupts: [],
      serversNeedingAuth: [],
    });

    const snapshots = record(chat);
    await chat.send('hi');
    const final = chat.getSnapshot();

    expect(chat.getSnapshot()).toBe(final);
    expect(final).not.toBe(initial);
    expect(snapshots.at(-1)).toBe(final);
    // Every notification carried a new snapshot object.
    expect(new Set(snapshots).size).toBe(snapshots.length);
    // The user message object is kept as is while the assistant message grows.
    const withUser = snapshots.filter((snapshot) => snapshot.messages.length > 0);
    for (const snapshot of withUser) expect(snapshot.messages[0]).toBe(final.messages[0]);
    // The initial snapshot was not mutated.
    expect(initial).toEqual({
      threadId: 'thread-1',
      messages: [],
      status: 'idle',
      interrupts: [],
      serversNeedingAuth: [],
    });
  });

  it('has bound subscribe and getSnapshot, usable as values', async () => {
    const { model } = await scripted([{ text: 'Hello.' }]);
    const chat = new AgentChat(new Agent({ name: 'test', model }), { threadId: 'bound' });
    const { subscribe, getSnapshot } = chat;
    const statuses: string[] = [];

    const unsubscribe = subscribe(() => statuses.push(getSnapshot().status));
    await chat.send('hi');
    unsubscribe();
    await chat.send('again');

    expect(getSnapshot()).toBe(chat.getSnapshot());
    expect(statuses.at(0)).toBe('loading');
    expect(statuses.at(-1)).toBe('idle');
    expect(statuses.filter((status) => status === 'idle')).toHaveLength(2);
  });

  it('streams the answer into one assistant message', async () => {
    const { model } = await scripted([{ text: 'alpha beta gamma delta' }]);
    const chat = new AgentChat(new Agent({ name: 'test', model }));
    const snapshots = record(chat);

    const result = await chat.send('hi');

    expect(result.status).toBe('completed');
    const final = chat.getSnapshot();
    expect(final.status).toBe('idle');
    expect(final.error).toBeUndefined();
    expect(withoutIds(final.messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'alpha beta gamma delta' }] },
    ]);
    const streamed = snapshots
      .filter((snapshot) => snapshot.status === 'streaming')
      .map((snapshot) => snapshot.messages)
      .filter((messages) => messages.length === 2)
      .map((messages) => {
        const assistant = messages[1];
        expect(assistant?.role).toBe('assistant');
        expect(assistant?.parts).toHaveLength(1);
        const part = assistant?.parts[0];
        return part?.type === 'text' ? part.text : '';
      });
    // Deltas that arrive in one network read show together (one snapshot per task of the
    // stream): every snapshot extends the previous one, the last shows the whole answer.
    expect(streamed.length).toBeGreaterThanOrEqual(1);
    expect(streamed.length).toBeLessThanOrEqual(4);
    expect(streamed.at(-1)).toBe('alpha beta gamma delta');
    streamed.forEach((text, index) => {
      expect(text).not.toBe('');
      if (index > 0) expect(text.startsWith(streamed[index - 1] ?? '')).toBe(true);
    });
    for (const snapshot of snapshots) expect(snapshot.messages.length).toBeLessThanOrEqual(2);
    expect(new Set(snapshots.flatMap((s) => s.messages.slice(1).map((m) => m.id))).size).toBe(1);
  });

  it('shows deltas that arrive apart one by one, each in its own snapshot', async () => {
    const { model } = await scripted([{ text: 'alpha beta gamma delta', delayMs: 30 }]);
    const chat = new AgentChat(new Agent({ name: 'test', model }));
    const snapshots = record(chat);

    expect((await chat.send('hi')).status).toBe('completed');
    const streamed = snapshots
      .filter((snapshot) => snapshot.status === 'streaming' && snapshot.messages.length === 2)
      .map((snapshot) => {
        const part = snapshot.messages[1]?.parts[0];
        return part?.type === 'text' ? part.text : '';
      });
    expect(streamed).toEqual([
      'alpha ',
      'alpha beta ',
      'alpha beta gamma ',
      'alpha beta gamma delta',
    ]);
  });

  it('shows tool calls running, then done with their output', async () => {
    const { model } = await scripted([
      {
        text: 'Let me add.',
        toolCalls: [{ id: 'call_add', name: 'add', arguments: { a: 2, b: 3 } }],
      },
      { text: 'It is 5.' },
    ]);
    const chat = new AgentChat(new Agent({ name: 'test', model, tools: [addTool] }));
    const snapshots = record(chat);

    await chat.send('what is 2 plus 3?');

    const states = snapshots.flatMap((snapshot) =>
      snapshot.messages.flatMap((message) =>
        message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.state] : [])),
      ),
    );
    expect(states).toContain('running');
    expect(states.indexOf('running')).toBeLessThan(states.indexOf('done'));
    const running = snapshots
      .flatMap((snapshot) => snapshot.messages.flatMap((message) => message.parts))
      .find((part): part is ChatToolCallPart => part.type === 'tool-call');
    expect(running).toMatchObject({ state: 'running', toolName: 'add', arguments: { a: 2, b: 3 } });
    expect(running?.output).toBeUndefined();

    expect(withoutIds(chat.getSnapshot().messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'what is 2 plus 3?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Let me add.' },
          {
            type: 'tool-call',
            callId: 'call_add',
            toolName: 'add',
            arguments: { a: 2, b: 3 },
            state: 'done',
            output: { text: '5' },
          },
          { type: 'text', text: 'It is 5.' },
        ],
      },
    ]);
  });

  it('load() rebuilds the messages from history for a new chat over the same store and thread', async () => {
    const { model } = await scripted([
      {
        text: 'Let me add.',
        toolCalls: [{ id: 'call_add', name: 'add', arguments: { a: 2, b: 3 } }],
      },
      { text: 'It is 5.' },
      { text: 'You are welcome.' },
    ]);
    const history = new MemoryHistoryStore();
    const first = new AgentChat(new Agent({ name: 'test', model, tools: [addTool], history }), {
      threadId: 'shared',
    });
    await first.send('what is 2 plus 3?');
    await first.send('thanks');
    const live = first.getSnapshot().messages;
    expect(live).toHaveLength(4);

    const second = new AgentChat(new Agent({ name: 'test', model, tools: [addTool], history }), {
      threadId: 'shared',
    });
    const snapshots = record(second);
    const loading = second.load();
    expect(second.getSnapshot().status).toBe('loading');
    expect(second.load()).toBe(loading);
    await loading;

    const loaded = second.getSnapshot();
    expect(loaded.status).toBe('idle');
    expect(loaded.threadId).toBe('shared');
    expect(withoutIds(loaded.messages)).toEqual(withoutIds(live));
    expect(new Set(loaded.messages.map((message) => message.id)).size).toBe(4);
    expect(snapshots.map((snapshot) => snapshot.status)).toEqual(['loading', 'idle']);

    // A chat over another thread loads nothing.
    const empty = new AgentChat(new Agent({ name: 'test', model, history }), { threadId: 'other' });
    await empty.load();
    expect(empty.getSnapshot().messages).toEqual([]);
  });

  it('puts a failed run in snapshot.error with status error, cleared by the next send', async () => {
    const { model } = await scripted([
      { status: 401, error: 'Invalid API key' },
      { text: 'Back.' },
    ]);
    const chat = new AgentChat(new Agent({ name: 'test', model }));

    const failed = await chat.send('hi');

    expect(failed.status).toBe('failed');
    const errored = chat.getSnapshot();
    expect(errored.status).toBe('error');
    expect(errored.error?.code).toBe('model_error');
    expect(errored.error?.message).toContain('401');
    expect(errored.messages[0]).toMatchObject({ role: 'user', parts: [{ text: 'hi' }] });

    const statuses: ChatSnapshot[] = record(chat);
    const retried = await chat.send('again');
    expect(retried.status).toBe('completed');
    expect(statuses[0]?.status).toBe('streaming');
    expect(statuses[0]?.error).toBeUndefined();
    expect(chat.getSnapshot().status).toBe('idle');
    expect(chat.getSnapshot().error).toBeUndefined();
    expect(chat.getSnapshot()).not.toHaveProperty('error');
  });

  it('refuses a second send while streaming, and stop() ends running tool calls as errors', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_wait', name: 'wait', arguments: {} }] },
    ]);
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const wait = tool({
      name: 'wait',
      description: 'Waits until aborted.',
      input: z.object({}),
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          started();
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        }),
    });
    const chat = new AgentChat(new Agent({ name: 'test', model, tools: [wait] }));

    const sending = chat.send('wait');
    await toolStarted;
    await expect(chat.send('again')).rejects.toMatchObject({ code: 'run_in_progress' });
    chat.stop();
    const result = await sending;

    expect(result.status).toBe('cancelled');
    const snapshot = chat.getSnapshot();
    expect(snapshot.status).toBe('idle');
    const part = snapshot.messages[1]?.parts[0];
    expect(part).toMatchObject({ type: 'tool-call', callId: 'call_wait', state: 'error' });
    expect(part?.type === 'tool-call' && part.output?.isError).toBe(true);
  });
});
