import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ScriptedReply } from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { closeScriptedModelServers, scripted } from '../agent/agent-test-support.ts';
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

/** A chat on a scripted model server (real HTTP on 127.0.0.1) that answers `replies`. */
async function chatOn(replies: ScriptedReply[], options: AgentChatOptions): Promise<AgentChat> {
  const { model } = await scripted(replies);
  return new AgentChat(new Agent({ name: 'test', model, tools: [addTool] }), options);
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
});
