import { describe, expect, it, vi } from 'vitest';
import { Agent } from '../agent/agent.ts';
import type { RunRecord } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { describeChatClients } from './agent-chat-clients-contract.ts';
import { AgentChat } from './agent-chat.ts';
import { FOLLOW_INTERVAL_MS } from './follow-run.ts';

// One memory store seen by two agents, as two `Agent` instances of one process.
describeChatClients('MemoryHistoryStore', () => {
  const store = new MemoryHistoryStore();
  return { first: store, second: store };
});

describe('AgentChat following a run of another client', () => {
  it('reads the thread only while someone is subscribed, and shows the end of the run', async () => {
    const history = new MemoryHistoryStore();
    const now = Date.now();
    const running: RunRecord = {
      runId: 'r1',
      threadId: 't',
      status: 'running',
      items: [{ type: 'message', role: 'user', content: 'hi' }],
      createdAt: now,
      updatedAt: now,
      // Another client's live claim, renewed far into the future.
      lease: { owner: 'another tab', expiresAt: now + 60_000 },
    };
    await history.saveRun({ ...running, version: 1 });
    // Never called: the chat only reads the thread.
    const model = openaiChatModel({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x', model: 'm' });
    const agent = new Agent({ name: 'test', model, history });
    const reads = vi.spyOn(agent, 'loadThread');
    const chat = new AgentChat(agent, { threadId: 't' });
    const unsubscribe = chat.subscribe(() => undefined);
    await chat.load();
    expect(chat.getSnapshot().status).toBe('running-elsewhere');
    await vi.waitFor(() => expect(reads.mock.calls.length).toBeGreaterThanOrEqual(2), {
      timeout: FOLLOW_INTERVAL_MS * 3,
    });

    unsubscribe();
    const stopped = reads.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS * 1.5));
    expect(reads.mock.calls.length).toBe(stopped);

    const statuses: string[] = [];
    chat.subscribe(() => statuses.push(chat.getSnapshot().status));
    await history.saveRun({
      ...running,
      status: 'completed',
      items: [...running.items, { type: 'message', role: 'assistant', content: 'Hello.' }],
      version: 2,
      updatedAt: Date.now(),
    });
    await vi.waitFor(() => expect(chat.getSnapshot().status).toBe('idle'), {
      timeout: FOLLOW_INTERVAL_MS * 3,
    });
    expect(reads.mock.calls.length).toBeGreaterThan(stopped);
    expect(statuses).toEqual(['idle']);
    expect(chat.getSnapshot().messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'Hello.' }]);
  });
});
