import { describe, expect, it } from 'vitest';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mockModel, textTurn, type MockTurn } from '../testing/mock-model.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { FunctionCallOutputItem } from '../vocabulary/items.ts';
import { Agent } from './agent.ts';
import { expectEveryCallAnsweredOnce } from './agent-test-support.ts';

/** A turn calling the agent's own tool `delegate` as call `callId`. */
function delegateTurn(callId: string): MockTurn {
  return [
    {
      type: 'tool.call',
      callId,
      name: 'delegate',
      arguments: JSON.stringify({ input: 'Hand it on.' }),
    },
    { type: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
  ];
}

/**
 * An agent that is its own tool, with a model that hands the task on `delegations` times in a
 * row: without a limit every call starts one more nested run, each a model call, for as long
 * as the model likes.
 */
function selfDelegatingAgent(delegations: number, maxDepth?: number) {
  const history = new MemoryHistoryStore();
  // Model calls come one after another: the hand-ons (each the first call of a run one level
  // deeper), then an answer for every run, deepest first.
  const turns: MockTurn[] = [
    ...Array.from({ length: delegations }, (_, index) => delegateTurn(`call_${index}`)),
    ...Array.from({ length: delegations + 1 }, () => textTurn('Done.')),
  ];
  const model = mockModel(turns);
  const tools: Tool[] = [];
  const agent = new Agent({ name: 'delegate', model, history, tools });
  tools.push(
    agent.asTool({
      description: 'Hands the task to another copy of this agent.',
      ...(maxDepth === undefined ? {} : { maxDepth }),
    }),
  );
  return { agent, history, model };
}

describe('Agent.asTool: recursion', () => {
  it('refuses a sub-agent call past the default depth, with a clear output the model reads', async () => {
    const { agent, history, model } = selfDelegatingAgent(6);
    const result = await agent.execute({ messages: 'Start.' }).result();
    expect(result.status).toBe('completed');
    // The top run, then one nested run per level down to the default depth (5); the sixth
    // hand-on is refused.
    expect(model.requests.filter((request) => request.items.length === 1)).toHaveLength(6);
    const threads = await history.listThreads();
    expect(threads).toHaveLength(6);
    const outputs: FunctionCallOutputItem[] = [];
    for (const thread of threads) {
      const items = (await history.loadRuns(thread.threadId)).flatMap((run) => run.items);
      expectEveryCallAnsweredOnce(items);
      for (const item of items) if (item.type === 'function_call_output') outputs.push(item);
    }
    const refused = outputs.filter((output) => output.output.isError === true);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.output.text).toMatch(/5 sub-agent runs deep.*maxDepth/);
  });

  it('takes its own maxDepth, and refuses a bad one', async () => {
    const { agent, history } = selfDelegatingAgent(2, 1);
    const result = await agent.execute({ messages: 'Start.' }).result();
    expect(result.status).toBe('completed');
    expect(await history.listThreads()).toHaveLength(2);
    expect(() => agent.asTool({ description: 'x', name: 'again', maxDepth: 0 })).toThrow(
      /maxDepth/,
    );
  });
});
