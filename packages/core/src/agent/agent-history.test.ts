import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';
import { closeScriptedModelServers, scripted } from './agent-test-support.ts';

afterEach(closeScriptedModelServers);

describe('Agent with memory history', () => {
  it('sends the earlier exchange of the thread to the model on the next execute', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_1', name: 'remember', arguments: { name: 'Ada' } }] },
      { text: 'Nice to meet you, Ada.' },
      { text: 'Your name is Ada.' },
      { text: 'I do not know your name.' },
    ]);
    const remember = tool({
      name: 'remember',
      description: 'Remembers a name.',
      input: z.object({ name: z.string() }),
      execute: ({ name }) => `remembered ${name}`,
    });
    const agent = new Agent({ name: 'test', instructions: 'Be brief.', model, tools: [remember] });

    const first = await agent.execute({ threadId: 'thread-ada', messages: 'I am Ada.' }).result();
    const second = await agent
      .execute({ threadId: 'thread-ada', messages: 'What is my name?' })
      .result();

    expect(first.status).toBe('completed');
    expect(second.status).toBe('completed');
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'I am Ada.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'remember', arguments: '{"name":"Ada"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'remembered Ada' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    // The second run's output holds only what it added.
    expect(second.output).toEqual([
      { type: 'message', role: 'user', content: 'What is my name?' },
      { type: 'message', role: 'assistant', content: 'Your name is Ada.' },
    ]);

    const items = await agent.history.loadItems('thread-ada');
    expect(items).toEqual([...first.output, ...second.output]);
    const runs = await agent.history.loadRuns('thread-ada');
    expect(runs.map((run) => [run.runId, run.status])).toEqual([
      [first.runId, 'completed'],
      [second.runId, 'completed'],
    ]);
    const threads = await agent.history.listThreads();
    expect(threads).toMatchObject([{ threadId: 'thread-ada', title: 'I am Ada.' }]);

    // Another thread does not see it.
    const other = await agent.execute({ messages: 'What is my name?' }).result();
    expect(other.threadId).not.toBe('thread-ada');
    expect(server.requests[3]?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('shares a thread between agents over the same store', async () => {
    const { server, model } = await scripted([{ text: 'First answer.' }, { text: 'Second.' }]);
    const history = new MemoryHistoryStore();
    const one = new Agent({ name: 'one', model, history });
    const two = new Agent({ name: 'two', model, history });
    expect(one.history).toBe(history);

    await one.execute({ threadId: 't', messages: 'hello' }).result();
    await two.execute({ threadId: 't', messages: 'again' }).result();

    expect(server.requests[1]?.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'again' },
    ]);
  });
});

describe('Agent run_in_progress', () => {
  it('refuses a second run on a thread that is running, allows other threads and later runs', async () => {
    const { model } = await scripted([
      { text: 'slow answer with several words', delayMs: 20 },
      { text: 'other thread' },
      { text: 'later' },
    ]);
    const agent = new Agent({ name: 'test', model });

    const running = agent.execute({ threadId: 'busy', messages: 'first' });
    let thrown: unknown;
    try {
      agent.execute({ threadId: 'busy', messages: 'second' });
    } catch (error) {
      thrown = error;
    }
    expect(isSwitchboardError(thrown, 'run_in_progress')).toBe(true);
    expect((thrown as Error).message).toContain('busy');

    const other = agent.execute({ threadId: 'free', messages: 'other' });
    expect((await other.result()).status).toBe('completed');
    expect((await running.result()).status).toBe('completed');

    const later = agent.execute({ threadId: 'busy', messages: 'later' });
    expect((await later.result()).status).toBe('completed');
    const items = await agent.history.loadItems('busy');
    expect(items.filter((item) => item.type === 'message' && item.role === 'user')).toEqual([
      { type: 'message', role: 'user', content: 'first' },
      { type: 'message', role: 'user', content: 'later' },
    ]);
  });

  it('frees the thread after a failed or stopped run', async () => {
    const { model } = await scripted((request) => {
      const last = request.messages.at(-1);
      if (last?.content === 'a') return { status: 400, error: 'refused' };
      if (last?.content === 'b') return { text: 'long text that is stopped early', delayMs: 1000 };
      return { text: 'ok' };
    });
    const agent = new Agent({ name: 'test', model });

    expect((await agent.execute({ threadId: 't', messages: 'a' }).result()).status).toBe('failed');
    const stopped = agent.execute({ threadId: 't', messages: 'b' });
    stopped.stop();
    expect((await stopped.result()).status).toBe('cancelled');
    expect((await agent.execute({ threadId: 't', messages: 'c' }).result()).status).toBe(
      'completed',
    );
  });
});
