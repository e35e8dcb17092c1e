import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.ts';
import { closeScriptedModelServers, scripted } from '../agent/agent-test-support.ts';
import { DELETE_CALL, guardedTool } from '../agent/run-claims-contract.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { AgentChat } from './agent-chat.ts';
import type { ChatMessage } from './chat-message.ts';

afterEach(closeScriptedModelServers);

/** Each message as `role: text`, with `[index+1/count]` on a run's first message. */
function shown(messages: readonly ChatMessage[]): string[] {
  return messages.map((message) => {
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    const branch =
      message.branch === undefined ? '' : ` [${message.branch.index + 1}/${message.branch.count}]`;
    return `${message.role}: ${text.join(' ')}${branch}`;
  });
}

describe('AgentChat branches (docs/conversations.md, "Branches")', () => {
  it('edit, regenerate and switch keep every branch, and a reload shows the selected one', async () => {
    const { server, model } = await scripted([
      { text: 'Hello.' },
      { text: 'Paris.' },
      { text: 'Rome.' },
      { text: 'Rome, of course.' },
    ]);
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'branches', model, history });
    const chat = new AgentChat(agent, { threadId: 't' });
    await chat.send('Hi');
    await chat.send('Capital of France?');
    const france = chat.getSnapshot().messages[2];
    expect(france?.runId).toBeDefined();
    expect(chat.getSnapshot().messages.every((message) => message.runId !== undefined)).toBe(true);

    await chat.edit(france?.runId ?? '', 'Capital of Italy?');
    expect(shown(chat.getSnapshot().messages)).toEqual([
      'user: Hi [1/1]',
      'assistant: Hello.',
      'user: Capital of Italy? [2/2]',
      'assistant: Rome.',
    ]);
    // The model read the branch up to the edited message only.
    expect(server.requests[2]?.messages?.map((message) => message.content)).toEqual([
      'Hi',
      'Hello.',
      'Capital of Italy?',
    ]);

    const italy = chat.getSnapshot().messages[3];
    await chat.regenerate(italy?.runId ?? '');
    const messages = chat.getSnapshot().messages;
    expect(shown(messages)).toEqual([
      'user: Hi [1/1]',
      'assistant: Hello.',
      'user: Capital of Italy? [3/3]',
      'assistant: Rome, of course.',
    ]);
    const siblings = messages[2]?.branch?.siblings ?? [];
    expect(siblings).toHaveLength(3);

    await chat.switchBranch(siblings[0] ?? '');
    expect(shown(chat.getSnapshot().messages)).toEqual([
      'user: Hi [1/1]',
      'assistant: Hello.',
      'user: Capital of France? [1/3]',
      'assistant: Paris.',
    ]);
    const reloaded = new AgentChat(new Agent({ name: 'branches', model, history }), {
      threadId: 't',
    });
    await reloaded.load();
    expect(shown(reloaded.getSnapshot().messages)).toEqual(shown(chat.getSnapshot().messages));

    await reloaded.switchBranch(siblings[1] ?? '');
    const again = new AgentChat(new Agent({ name: 'branches', model, history }), {
      threadId: 't',
    });
    await again.load();
    expect(shown(again.getSnapshot().messages).slice(2)).toEqual([
      'user: Capital of Italy? [2/3]',
      'assistant: Rome.',
    ]);
    await expect(again.switchBranch('no-such-run')).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(again.edit(siblings[1] ?? '', '  ')).rejects.toMatchObject({
      code: 'invalid_input',
    });
    expect(server.requests).toHaveLength(4);
  });

  it('a pause on a branch switched away from is hidden, kept, and answerable when switched back', async () => {
    const { model } = await scripted([{ text: 'Hello.' }, DELETE_CALL, { text: 'Deleted.' }]);
    const history = new MemoryHistoryStore();
    const guarded = guardedTool();
    const agentOn = () =>
      new Agent({ name: 'branches', model, history, tools: [guarded.definition] });
    const chat = new AgentChat(agentOn(), { threadId: 't' });
    await chat.send('delete it');
    const first = chat.getSnapshot().messages[0]?.runId ?? '';
    await chat.regenerate(first);
    expect(chat.getSnapshot()).toMatchObject({
      status: 'paused',
      interrupts: [{ mode: 'approval' }],
    });
    const paused = chat.getSnapshot().messages[0]?.runId ?? '';

    await chat.switchBranch(first);
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', interrupts: [] });
    const reloaded = new AgentChat(agentOn(), { threadId: 't' });
    await reloaded.load();
    expect(reloaded.getSnapshot()).toMatchObject({ status: 'idle', interrupts: [] });
    expect(shown(reloaded.getSnapshot().messages)).toEqual([
      'user: delete it [1/2]',
      'assistant: Hello.',
    ]);

    await reloaded.switchBranch(paused);
    expect(reloaded.getSnapshot()).toMatchObject({
      status: 'paused',
      interrupts: [{ callId: 'call_delete' }],
    });
    const result = await reloaded.approve('call_delete');
    expect(result?.status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);
    expect(shown(reloaded.getSnapshot().messages)).toEqual([
      'user: delete it [2/2]',
      'assistant: Deleted.',
    ]);
  });
});
