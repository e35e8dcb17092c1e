import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mockModel, textTurn, type MockTurn } from '../testing/mock-model.ts';
import { tool } from '../tools/tool.ts';
import type { Tool } from '../tools/tool-types.ts';
import { Agent } from './agent.ts';
import { collect, expectEveryCallAnsweredOnce } from './agent-test-support.ts';

/** A turn calling `name` with `args` as call `callId`. */
function callTurn(name: string, args: unknown, callId: string): MockTurn {
  return [
    { type: 'tool.call', callId, name, arguments: JSON.stringify(args) },
    { type: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
  ];
}

/** A tool that needs approval and records what it deleted. */
function deleteTool(): { definition: Tool; runs: string[] } {
  const runs: string[] = [];
  const definition = tool({
    name: 'delete_file',
    description: 'Deletes a file.',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    execute: ({ path }) => {
      runs.push(path);
      return `deleted ${path}`;
    },
  });
  return { definition, runs };
}

/** A parent and its `cleaner` sub-agent over `history`, with fresh scripted models. */
function agentsOn(
  history: MemoryHistoryStore,
  turns: { parent: MockTurn[]; child: MockTurn[] },
  tools: Tool[],
): Agent {
  const child = new Agent({ name: 'cleaner', model: mockModel(turns.child), history, tools });
  return new Agent({
    name: 'lead',
    model: mockModel(turns.parent),
    history,
    tools: [child.asTool({ description: 'Cleans up files.' })],
  });
}

/** The parent paused on the nested approval of `delete_file`; returns the child's thread. */
async function pausedOnNestedApproval(history: MemoryHistoryStore, tools: Tool[]) {
  const parent = agentsOn(
    history,
    {
      parent: [callTurn('cleaner', { input: 'Delete /tmp/a.' }, 'outer_1')],
      child: [callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete')],
    },
    tools,
  );
  const result = await parent.execute({ threadId: 'parent', messages: 'Clean up.' }).result();
  expect(result.status).toBe('paused');
  return result.interrupts[0]?.nested?.threadId ?? '';
}

describe('Agent.asTool: a nested pause whose nested thread is gone', () => {
  it("answers the parent's call once, with an error, when the child's thread was deleted; nothing runs", async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const childThread = await pausedOnNestedApproval(history, [remove.definition]);
    await history.deleteThread(childThread);

    const parent = agentsOn(history, { parent: [textTurn('It could not be done.')], child: [] }, [
      remove.definition,
    ]);
    const resumed = parent.execute({
      threadId: 'parent',
      resolutions: [{ callId: 'outer_1', action: 'approve' }],
    });
    await collect(resumed);
    const result = await resumed.result();
    expect(result.status).toBe('completed');
    expect(remove.runs).toEqual([]);
    const items = (await history.loadRuns('parent')).flatMap((run) => run.items);
    expectEveryCallAnsweredOnce(items);
    const output = items.find(
      (item) => item.type === 'function_call_output' && item.callId === 'outer_1',
    );
    expect(output?.type === 'function_call_output' && output.output.isError).toBe(true);
  });
});
