import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  startStallingModelServer,
  type ScriptedReply,
  type StallingModelServer,
} from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { closeScriptedModelServers, collect, scripted } from '../agent/agent-test-support.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle } from '../agent/run-result.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { tool } from '../tools/tool.ts';
import { AgentChat, type AgentChatOptions, type ChatSnapshot } from './agent-chat.ts';
import type { ChatMessage } from './chat-message.ts';

afterEach(closeScriptedModelServers);

const addTool = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => Promise.resolve(String(a + b)),
});

const removed: string[] = [];
const removeFile = tool({
  name: 'remove_file',
  description: 'Removes a file.',
  input: z.object({ path: z.string() }),
  needsApproval: true,
  execute: ({ path }) => {
    removed.push(path);
    return Promise.resolve(`Removed ${path}.`);
  },
});

const stallingServers: StallingModelServer[] = [];
afterEach(async () => {
  await Promise.all(stallingServers.splice(0).map((server) => server.close()));
});

/** A chat on a scripted model server (real HTTP on 127.0.0.1) that answers `replies`. */
async function chatOn(replies: ScriptedReply[], options: AgentChatOptions): Promise<AgentChat> {
  return (await agentChatOn(replies, options)).chat;
}

/**
 * A chat on a scripted model server answering `replies`, its agent and history, and the handles
 * of the runs the chat started (their chunks can be read again: a replay channel).
 */
async function agentChatOn(replies: ScriptedReply[], options: AgentChatOptions) {
  const { model } = await scripted(replies);
  const history = new MemoryHistoryStore();
  const agent = new Agent({ name: 'test', model, tools: [addTool, removeFile], history });
  const handles: RunHandle[] = [];
  const execute = agent.execute.bind(agent);
  agent.execute = (input) => {
    const handle = execute(input);
    handles.push(handle);
    return handle;
  };
  return { chat: new AgentChat(agent, options), agent, history, handles };
}

/** The text of every `text.delta` chunk of `chunks`, joined. */
function streamedText(chunks: readonly Chunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text.delta' ? chunk.delta : '')).join('');
}

/** What a snapshot shows, without the random message ids. */
function shown(snapshot: ChatSnapshot) {
  return {
    status: snapshot.status,
    messages: withoutIds(snapshot.messages),
    interrupts: snapshot.interrupts,
    error: snapshot.error?.code,
  };
}

/** Records every snapshot a subscriber is notified with. */
function record(chat: AgentChat): ChatSnapshot[] {
  const snapshots: ChatSnapshot[] = [];
  chat.subscribe(() => snapshots.push(chat.getSnapshot()));
  return snapshots;
}

/** Messages without their ids (live ids are random). */
function withoutIds(messages: readonly ChatMessage[]) {
  return messages.map(({ role, parts }) => ({ role, parts }));
}

/** The assistant text a snapshot shows so far ('' before the assistant message). */
function assistantText(snapshot: ChatSnapshot): string {
  const part = snapshot.messages[1]?.parts[0];
  return part?.type === 'text' ? part.text : '';
}

const TEXT = 'alpha beta gamma delta';

describe('AgentChat holdDeltas', () => {
  it('holds deltas until fold is called, then shows all held at once, in order', async () => {
    const folds: (() => void)[] = [];
    const chat = await chatOn([{ text: TEXT, delayMs: 30 }], {
      holdDeltas: (fold) => folds.push(fold),
    });
    const snapshots = record(chat);

    const sent = chat.send('hi');
    await vi.waitFor(() => expect(folds.length).toBe(1));
    // Held: subscribers were told the run streams, not yet of its text.
    expect(snapshots.at(-1)?.status).toBe('streaming');
    expect(assistantText(chat.getSnapshot())).toBe('');

    folds[0]?.();
    const shown = assistantText(chat.getSnapshot());
    expect(shown).not.toBe('');
    expect(TEXT.startsWith(shown)).toBe(true);

    expect((await sent).status).toBe('completed');
    const final = chat.getSnapshot();
    expect(withoutIds(final.messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: TEXT }] },
    ]);
    // The run's end folded what was held; a fold of the ended run changes nothing.
    for (const fold of folds) fold();
    expect(chat.getSnapshot()).toBe(final);
    const texts = snapshots.map(assistantText).filter((text) => text !== '');
    texts.forEach((text, index) => {
      if (index > 0) expect(text.startsWith(texts[index - 1] ?? '')).toBe(true);
    });
  });

  it('a tool call folds the held deltas before it: the same messages as without holding', async () => {
    const replies: ScriptedReply[] = [
      {
        text: 'Let me add them. ',
        delayMs: 10,
        toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 }, id: 'call_add' }],
      },
      { text: 'The sum is 5.', delayMs: 10 },
    ];
    // Never folded by the caller: only the chat's own folds show the deltas.
    let asks = 0;
    const holding = await chatOn(replies, {
      holdDeltas: () => {
        asks += 1;
      },
    });
    const plain = await chatOn(replies, {});
    const snapshots = record(holding);

    expect((await holding.send('add 2 and 3')).status).toBe('completed');
    expect((await plain.send('add 2 and 3')).status).toBe('completed');
    expect(withoutIds(holding.getSnapshot().messages)).toEqual(
      withoutIds(plain.getSnapshot().messages),
    );
    // Asked once: while a fold is outstanding, more held deltas wait for that same fold.
    expect(asks).toBe(1);
    // When the call first shows, the text before it is all there.
    const firstWithCall = snapshots.find((snapshot) =>
      snapshot.messages[1]?.parts.some((part) => part.type === 'tool-call'),
    );
    expect(firstWithCall?.messages[1]?.parts[0]).toEqual({
      type: 'text',
      text: 'Let me add them. ',
    });
  });

  it('stop while deltas are held: every streamed delta shows once, as the stored thread has it', async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index} `).join('');
    let folds = 0;
    const { chat, agent, handles } = await agentChatOn([{ text: words, delayMs: 20 }], {
      // Never folded by the caller (a UI whose frame never comes): only the chat's own folds.
      holdDeltas: () => {
        folds += 1;
      },
    });
    const sent = chat.send('talk');
    await vi.waitFor(() => expect(folds).toBeGreaterThan(0));
    expect(assistantText(chat.getSnapshot())).toBe('');
    chat.stop();
    const result = await sent;
    expect(result.status).toBe('cancelled');

    const chunks = await collect(handles[0] as RunHandle);
    const streamed = streamedText(chunks);
    expect(streamed).not.toBe('');
    expect(streamed.length).toBeLessThan(words.length);
    // Held deltas folded on the way out: all of them, once, in order.
    expect(assistantText(chat.getSnapshot())).toBe(streamed);
    expect(chat.getSnapshot().status).toBe('idle');
    // And the chat shows what a reload of the thread shows.
    const reloaded = new AgentChat(agent, { threadId: chat.getSnapshot().threadId });
    await reloaded.load();
    expect(withoutIds(reloaded.getSnapshot().messages)).toEqual(
      withoutIds(chat.getSnapshot().messages),
    );
  });

  it('an approval interrupt right after text deltas: the same messages and interrupts as without holding', async () => {
    const replies: ScriptedReply[] = [
      {
        text: 'I will remove notes.txt now. ',
        delayMs: 5,
        toolCalls: [{ name: 'remove_file', arguments: { path: 'notes.txt' }, id: 'call_rm' }],
      },
      { text: 'Removed it.', delayMs: 5 },
    ];
    removed.length = 0;
    const holding = await chatOn(replies, { holdDeltas: () => undefined });
    const plain = await chatOn(replies, {});
    const snapshots = record(holding);

    expect((await holding.send('remove notes.txt')).status).toBe('paused');
    expect((await plain.send('remove notes.txt')).status).toBe('paused');
    expect(shown(holding.getSnapshot())).toEqual(shown(plain.getSnapshot()));
    expect(removed).toEqual([]);
    // The first snapshot with the interrupt already has all of the text before it.
    const firstPaused = snapshots.find((snapshot) => snapshot.interrupts.length > 0);
    expect(firstPaused?.messages[1]?.parts[0]).toEqual({
      type: 'text',
      text: 'I will remove notes.txt now. ',
    });

    // Approved: the tool runs once, and the resumed answer is the same with and without holding.
    expect((await holding.resolve('call_rm', 'approve'))?.status).toBe('completed');
    expect((await plain.resolve('call_rm', 'approve'))?.status).toBe('completed');
    expect(removed).toEqual(['notes.txt', 'notes.txt']);
    expect(shown(holding.getSnapshot())).toEqual(shown(plain.getSnapshot()));
  });

  it('a model stream that errors mid-text: the same text and error as without holding', async () => {
    const replies: ScriptedReply[] = [
      { text: 'one two three four five six', delayMs: 5, streamError: { afterChunks: 4 } },
    ];
    const holding = await chatOn(replies, { holdDeltas: () => undefined });
    const plain = await chatOn(replies, {});

    expect((await holding.send('count')).status).toBe('failed');
    expect((await plain.send('count')).status).toBe('failed');
    expect(shown(holding.getSnapshot())).toEqual(shown(plain.getSnapshot()));
    expect(holding.getSnapshot().status).toBe('error');
    expect(assistantText(holding.getSnapshot())).not.toBe('');
  });

  it('a stream that stalls mid-text hits its time limit: the text held so far shows with the timeout', async () => {
    const chatOnStall = async (options: AgentChatOptions) => {
      const server = await startStallingModelServer({ stall: 'mid-stream' });
      stallingServers.push(server);
      const model = openaiChatModel({
        baseURL: `${server.url}/v1`,
        apiKey: 'x',
        model: 'stalling',
        idleTimeoutMs: 250,
      });
      return new AgentChat(new Agent({ name: 'test', model }), options);
    };
    let folds = 0;
    const holding = await chatOnStall({
      holdDeltas: () => {
        folds += 1;
      },
    });
    const plain = await chatOnStall({});

    const [held, free] = await Promise.all([holding.send('hi'), plain.send('hi')]);
    expect(held.status).toBe('failed');
    expect(held.error?.code).toBe('timeout');
    expect(free.error?.code).toBe('timeout');
    expect(folds).toBe(1);
    expect(shown(holding.getSnapshot())).toEqual(shown(plain.getSnapshot()));
    expect(assistantText(holding.getSnapshot())).toBe('Hel');
  });

  it('held reasoning and text deltas, folded together: the same parts as without holding', async () => {
    const replies: ScriptedReply[] = [
      { reasoning: 'First I think about it, then', text: 'the answer is here.', delayMs: 5 },
    ];
    const holding = await chatOn(replies, { holdDeltas: () => undefined });
    const plain = await chatOn(replies, {});
    expect((await holding.send('think')).status).toBe('completed');
    expect((await plain.send('think')).status).toBe('completed');
    expect(shown(holding.getSnapshot())).toEqual(shown(plain.getSnapshot()));
    expect(holding.getSnapshot().messages[1]?.parts.map((part) => part.type)).toEqual([
      'reasoning',
      'text',
    ]);
  });

  it('a run handle whose chunks end without a terminal chunk still shows every held delta', async () => {
    // An endpoint's handle (not a replay channel) whose stream stops after the text: nothing but
    // the end of the stream folds what is held, and the UI never folds.
    const { agent } = await agentChatOn([{ text: TEXT, delayMs: 5 }], {});
    const execute = agent.execute.bind(agent);
    agent.execute = (input) => {
      const handle = execute(input);
      async function* withoutTerminal(): AsyncGenerator<Chunk> {
        for await (const chunk of handle.chunks) {
          if (chunk.type === 'run.completed') return;
          yield chunk;
        }
      }
      const cut: RunHandle = {
        runId: handle.runId,
        threadId: handle.threadId,
        chunks: withoutTerminal(),
        result: () => handle.result(),
        stop: () => handle.stop(),
      };
      return cut;
    };
    const chat = new AgentChat(agent, { holdDeltas: () => undefined });
    expect((await chat.send('hi')).status).toBe('completed');
    expect(assistantText(chat.getSnapshot())).toBe(TEXT);
  });
});
