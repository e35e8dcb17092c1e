import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HistoryStore } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { TabStore } from '../history/tab-store-test-support.ts';
import type { ModelEvent } from '../model/model.ts';
import { mockModel, textTurn, type MockTurn } from '../testing/mock-model.ts';
import { tool } from '../tools/tool.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { Item } from '../vocabulary/items.ts';
import { Agent } from './agent.ts';
import type { Chunk } from './chunks.ts';
import { collect, deferred, expectEveryCallAnsweredOnce, ofType } from './agent-test-support.ts';

/** A turn answering `text` that spent `input` + `output` tokens. */
function textTurnWithUsage(text: string, input: number, output: number): readonly ModelEvent[] {
  return [
    { type: 'text.delta', delta: text },
    { type: 'done', usage: { inputTokens: input, outputTokens: output } },
  ];
}

/** A turn calling `name` with `args` as call `callId`, spending `input` + `output` tokens. */
function callTurn(name: string, args: unknown, callId: string, input = 0, output = 0): MockTurn {
  return [
    { type: 'tool.call', callId, name, arguments: JSON.stringify(args) },
    { type: 'done', usage: { inputTokens: input, outputTokens: output } },
  ];
}

/** A tool that needs approval and records what it deleted. */
function deleteTool(): { definition: Tool; runs: string[] } {
  const runs: string[] = [];
  const definition = tool({
    name: 'delete_file',
    description: 'Deletes a file.',
    input: z.object({ path: z.string() }),
    annotations: { destructiveHint: true },
    needsApproval: true,
    execute: async ({ path }) => {
      runs.push(path);
      await new Promise((resolve) => setTimeout(resolve, 10));
      return `deleted ${path}`;
    },
  });
  return { definition, runs };
}

/** Every item of every run of `threadId`, in order. */
async function itemsOf(history: HistoryStore, threadId: string): Promise<Item[]> {
  return (await history.loadRuns(threadId)).flatMap((run) => run.items);
}

/** The parent and child agents of one "tab": new instances over one store, with fresh models. */
function agentsOn(
  history: HistoryStore,
  turns: { parent: MockTurn[]; child: MockTurn[] },
  tools: Tool[],
): { parent: Agent; child: Agent } {
  const child = new Agent({ name: 'cleaner', model: mockModel(turns.child), history, tools });
  const parent = new Agent({
    name: 'lead',
    model: mockModel(turns.parent),
    history,
    tools: [child.asTool({ description: 'Cleans up files.' })],
  });
  return { parent, child };
}

describe('Agent.asTool: a sub-agent run as a tool', () => {
  it('streams the nested run as tool.nested chunks of the call, links its rows and adds its usage', async () => {
    const history = new MemoryHistoryStore();
    const lookup = tool({
      name: 'lookup',
      description: 'Looks a fact up.',
      input: z.object({ q: z.string() }),
      execute: ({ q }) => `${q} is 42`,
    });
    const child = new Agent({
      name: 'researcher',
      model: mockModel([
        callTurn('lookup', { q: 'the answer' }, 'inner_1', 10, 2),
        textTurnWithUsage('Found: 42.', 20, 3),
      ]),
      history,
      tools: [lookup],
    });
    const parent = new Agent({
      name: 'lead',
      model: mockModel([
        callTurn('researcher', { input: 'Find the answer.' }, 'outer_1', 100, 10),
        textTurnWithUsage('The answer is 42.', 200, 20),
      ]),
      history,
      tools: [child.asTool({ description: 'Researches a question.' })],
    });

    const handle = parent.execute({ threadId: 'parent', messages: 'What is the answer?' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(result.status).toBe('completed');
    const nested = ofType(chunks, 'tool.nested');
    expect(nested.every((chunk) => chunk.callId === 'outer_1')).toBe(true);
    expect(nested.map((chunk) => chunk.chunk.type)).toEqual([
      'run.started',
      'tool.call',
      'tool.result',
      'text.delta',
      'text.done',
      'run.completed',
    ]);
    // Each nested chunk comes before the call's result, in the nested run's own numbering.
    const resultIndex = chunks.findIndex((chunk) => chunk.type === 'tool.result');
    expect(chunks.indexOf(nested.at(-1)!)).toBeLessThan(resultIndex);
    expect(nested.map((chunk) => chunk.chunk.sequence)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(ofType(chunks, 'tool.result')[0]?.output.text).toBe('Found: 42.');
    expect(result.usage).toEqual({ inputTokens: 330, outputTokens: 35 });

    const started = nested[0]?.chunk;
    expect(started?.type).toBe('run.started');
    const childThread = started?.type === 'run.started' ? started.threadId : '';
    const childRuns = await history.loadRuns(childThread);
    expect(childRuns).toHaveLength(1);
    expect(childRuns[0]?.status).toBe('completed');
    expect(childRuns[0]?.parentCall).toEqual({
      threadId: 'parent',
      runId: result.runId,
      callId: 'outer_1',
    });
    expect(childRuns[0]?.usage).toEqual({ inputTokens: 30, outputTokens: 5 });
    const parentRuns = await history.loadRuns('parent');
    expect(parentRuns[0]?.usage).toEqual({ inputTokens: 330, outputTokens: 35 });
    expectEveryCallAnsweredOnce(await itemsOf(history, 'parent'));
    expectEveryCallAnsweredOnce(await itemsOf(history, childThread));
  });

  it('pauses the parent on a nested approval and, after a reload, runs the approved tool once', async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const first = agentsOn(
      history,
      {
        parent: [callTurn('cleaner', { input: 'Delete /tmp/a.' }, 'outer_1', 5, 1)],
        child: [callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete', 7, 1)],
      },
      [remove.definition],
    );
    const paused = first.parent.execute({ threadId: 'parent', messages: 'Clean up.' });
    const pausedChunks = await collect(paused);
    const pausedResult = await paused.result();

    expect(pausedResult.status).toBe('paused');
    expect(remove.runs).toEqual([]);
    const [interrupt] = pausedResult.interrupts;
    expect(interrupt).toMatchObject({
      callId: 'outer_1',
      toolName: 'cleaner',
      mode: 'approval',
      annotations: { destructiveHint: true },
      nested: {
        agent: 'cleaner',
        callId: 'inner_delete',
        toolName: 'delete_file',
        arguments: { path: '/tmp/a' },
        mode: 'approval',
      },
    });
    expect(ofType(pausedChunks, 'tool.nested').at(-1)?.chunk.type).toBe('run.paused');
    expect(pausedResult.usage).toEqual({ inputTokens: 12, outputTokens: 2 });
    const childThread = interrupt?.nested?.threadId ?? '';
    expect((await history.loadRuns(childThread))[0]?.status).toBe('paused');

    // A reload: new Agent instances (and models) over the same store.
    const second = agentsOn(
      history,
      {
        parent: [textTurnWithUsage('Cleaned up.', 3, 1)],
        child: [textTurnWithUsage('Deleted /tmp/a.', 4, 1)],
      },
      [remove.definition],
    );
    const resumed = second.parent.execute({
      threadId: 'parent',
      resolutions: [{ callId: 'outer_1', action: 'approve' }],
    });
    const resumedChunks = await collect(resumed);
    const result = await resumed.result();

    expect(result.status).toBe('completed');
    expect(remove.runs).toEqual(['/tmp/a']);
    expect(ofType(resumedChunks, 'tool.result')[0]?.output.text).toBe('Deleted /tmp/a.');
    const innerResults = ofType(resumedChunks, 'tool.nested').filter(
      (chunk) => chunk.chunk.type === 'tool.result',
    );
    expect(innerResults).toHaveLength(1);
    // Each token once: the first part's usage is not added again when the nested run resumes.
    expect(result.usage).toEqual({ inputTokens: 19, outputTokens: 4 });
    const childRuns = await history.loadRuns(childThread);
    expect(childRuns.map((run) => run.status)).toEqual(['completed']);
    expect(childRuns[0]?.usage).toEqual({ inputTokens: 11, outputTokens: 2 });
    expectEveryCallAnsweredOnce(await itemsOf(history, 'parent'));
    expectEveryCallAnsweredOnce(await itemsOf(history, childThread));
  });

  it('hands a refusal on: the nested call is rejected, the sub-agent answers, nothing runs', async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const turns = {
      parent: [
        callTurn('cleaner', { input: 'Delete /tmp/a.' }, 'outer_1'),
        textTurn('Nothing was deleted.'),
      ],
      child: [
        callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete'),
        textTurn('You declined.'),
      ],
    };
    const { parent } = agentsOn(history, turns, [remove.definition]);
    await parent.execute({ threadId: 'parent', messages: 'Clean up.' }).result();
    const handle = parent.execute({
      threadId: 'parent',
      resolutions: [{ callId: 'outer_1', action: 'reject' }],
    });
    const chunks = await collect(handle);

    expect((await handle.result()).status).toBe('completed');
    expect(remove.runs).toEqual([]);
    const inner = ofType(chunks, 'tool.nested').find((chunk) => chunk.chunk.type === 'tool.result');
    expect(inner?.chunk.type === 'tool.result' && inner.chunk.output.error?.code).toBe('rejected');
    expect(ofType(chunks, 'tool.result')[0]?.output.text).toBe('You declined.');
  });

  it('validates a nested form answer on the parent and hands the content to the nested tool', async () => {
    const history = new MemoryHistoryStore();
    const answers: unknown[] = [];
    const ask = tool({
      name: 'ask_size',
      description: 'Asks the user for a size.',
      input: z.object({}),
      execute: (_args, context) => {
        if (context.resume === undefined) {
          return context.interrupt(
            {
              mode: 'form',
              message: 'Which size?',
              requestedSchema: {
                type: 'object',
                properties: { size: { type: 'integer', minimum: 1 } },
                required: ['size'],
              },
            },
            { step: 1 },
          );
        }
        answers.push(context.resume.resolution.content);
        return `size ${String(context.resume.resolution.content?.size)}`;
      },
    });
    const { parent } = agentsOn(
      history,
      {
        parent: [callTurn('cleaner', { input: 'Ask.' }, 'outer_1'), textTurn('Size noted.')],
        child: [callTurn('ask_size', {}, 'inner_ask'), textTurn('The size is 3.')],
      },
      [ask],
    );
    const paused = await parent.execute({ threadId: 'parent', messages: 'Go.' }).result();
    expect(paused.interrupts[0]).toMatchObject({
      callId: 'outer_1',
      mode: 'form',
      message: 'Which size?',
      nested: { callId: 'inner_ask', mode: 'form' },
    });

    const invalid = await parent
      .execute({
        threadId: 'parent',
        resolutions: [{ callId: 'outer_1', action: 'approve', content: { size: 0 } }],
      })
      .result();
    expect(invalid.status).toBe('paused');
    expect(invalid.error?.code).toBe('invalid_resolution');
    expect(answers).toEqual([]);

    const done = await parent
      .execute({
        threadId: 'parent',
        resolutions: [{ callId: 'outer_1', action: 'approve', content: { size: 3 } }],
      })
      .result();
    expect(done.status).toBe('completed');
    expect(answers).toEqual([{ size: 3 }]);
  });

  it('surfaces a sub-agent’s sub-agent’s approval with the whole path, and resumes both', async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const inner = new Agent({
      name: 'inner',
      model: mockModel([
        callTurn('delete_file', { path: '/tmp/deep' }, 'deep_delete'),
        textTurn('Deep delete done.'),
      ]),
      history,
      tools: [remove.definition],
    });
    const middle = new Agent({
      name: 'middle',
      model: mockModel([
        callTurn('inner', { input: 'Go deeper.' }, 'middle_call'),
        textTurn('OK.'),
      ]),
      history,
      tools: [inner.asTool({ description: 'Goes deeper.' })],
    });
    const top = new Agent({
      name: 'top',
      model: mockModel([callTurn('middle', { input: 'Go.' }, 'top_call'), textTurn('All done.')]),
      history,
      tools: [middle.asTool({ description: 'Delegates.' })],
    });
    const paused = await top.execute({ threadId: 'top', messages: 'Start.' }).result();
    expect(paused.interrupts[0]).toMatchObject({
      callId: 'top_call',
      mode: 'approval',
      nested: {
        agent: 'middle',
        callId: 'middle_call',
        mode: 'approval',
        nested: { agent: 'inner', callId: 'deep_delete', toolName: 'delete_file' },
      },
    });

    const handle = top.execute({
      threadId: 'top',
      resolutions: [{ callId: 'top_call', action: 'approve' }],
    });
    const chunks = await collect(handle);
    expect((await handle.result()).status).toBe('completed');
    expect(remove.runs).toEqual(['/tmp/deep']);
    const twoDeep = ofType(chunks, 'tool.nested').flatMap((chunk) =>
      chunk.chunk.type === 'tool.nested' ? [chunk.chunk.chunk.type] : [],
    );
    expect(twoDeep).toContain('tool.result');
    const middleThread = paused.interrupts[0]?.nested?.threadId ?? '';
    const innerThread = paused.interrupts[0]?.nested?.nested?.threadId ?? '';
    for (const threadId of ['top', middleThread, innerThread]) {
      expect((await history.loadRuns(threadId)).at(-1)?.status).toBe('completed');
      expectEveryCallAnsweredOnce(await itemsOf(history, threadId));
    }
  });

  it('two tabs approving one nested call at once: one proceeds, the tool runs once', async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const setup = agentsOn(
      history,
      {
        parent: [callTurn('cleaner', { input: 'Delete.' }, 'outer_1')],
        child: [callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete')],
      },
      [remove.definition],
    );
    await setup.parent.execute({ threadId: 'parent', messages: 'Clean up.' }).result();

    const tabs = [0, 1].map(() =>
      agentsOn(history, { parent: [textTurn('Cleaned.')], child: [textTurn('Deleted.')] }, [
        remove.definition,
      ]),
    );
    const results = await Promise.all(
      tabs.map(({ parent }) =>
        parent
          .execute({ threadId: 'parent', resolutions: [{ callId: 'outer_1', action: 'approve' }] })
          .result(),
      ),
    );

    expect(results.map((result) => result.status).sort()).toEqual(['completed', 'failed']);
    // `not_paused` when the winner had finished before the loser read the thread (under load).
    expect(['run_claimed', 'not_paused']).toContain(
      results.find((result) => result.status === 'failed')?.error?.code,
    );
    expect(remove.runs).toEqual(['/tmp/a']);
    expectEveryCallAnsweredOnce(await itemsOf(history, 'parent'));
  });

  it('stopping the parent stops the nested run: both end cancelled, every call with one output', async () => {
    const history = new MemoryHistoryStore();
    const started = deferred();
    const slow = tool({
      name: 'slow',
      description: 'Works until stopped.',
      input: z.object({}),
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          started.resolve();
          context.signal.addEventListener('abort', () => reject(context.signal.reason as Error));
        }),
    });
    const child = new Agent({
      name: 'worker',
      model: mockModel([callTurn('slow', {}, 'inner_slow', 8, 2)]),
      history,
      tools: [slow],
    });
    const parent = new Agent({
      name: 'lead',
      model: mockModel([callTurn('worker', { input: 'Work.' }, 'outer_1')]),
      history,
      tools: [child.asTool({ description: 'Works.' })],
    });
    const handle = parent.execute({ threadId: 'parent', messages: 'Go.' });
    const chunks = collect(handle);
    await started.promise;
    handle.stop();
    const result = await handle.result();

    expect(result.status).toBe('cancelled');
    const childThread = ofType(await chunks, 'tool.nested').find(
      (chunk) => chunk.chunk.type === 'run.started',
    )?.chunk;
    const childThreadId = childThread?.type === 'run.started' ? childThread.threadId : '';
    // The nested run ends on its own schedule once its signal aborted.
    await expect
      .poll(async () => (await history.loadRuns(childThreadId))[0]?.status)
      .toBe('cancelled');
    expectEveryCallAnsweredOnce(await itemsOf(history, 'parent'));
    expectEveryCallAnsweredOnce(await itemsOf(history, childThreadId));
    const parentItems = await itemsOf(history, 'parent');
    const output = parentItems.find((item) => item.type === 'function_call_output');
    expect(output?.type === 'function_call_output' && output.output.error?.code).toBe('cancelled');
  });

  it('a new message instead of an answer closes the nested pause too: both calls unanswered', async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const { parent } = agentsOn(
      history,
      {
        parent: [callTurn('cleaner', { input: 'Delete.' }, 'outer_1'), textTurn('Never mind.')],
        child: [callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete')],
      },
      [remove.definition],
    );
    const paused = await parent.execute({ threadId: 'parent', messages: 'Clean up.' }).result();
    const childThread = paused.interrupts[0]?.nested?.threadId ?? '';

    const next = await parent.execute({ threadId: 'parent', messages: 'Forget it.' }).result();

    expect(next.status).toBe('completed');
    expect(remove.runs).toEqual([]);
    const childRuns = await history.loadRuns(childThread);
    expect(childRuns.map((run) => run.status)).toEqual(['cancelled']);
    for (const threadId of ['parent', childThread]) {
      const items = await itemsOf(history, threadId);
      expectEveryCallAnsweredOnce(items);
      const outputs = items.filter((item) => item.type === 'function_call_output');
      expect(outputs[0]?.type === 'function_call_output' && outputs[0].output.error?.code).toBe(
        'unanswered',
      );
    }
  });

  it('abandonPause dismisses a pause and the nested one without a new run', async () => {
    const history = new MemoryHistoryStore();
    const remove = deleteTool();
    const { parent } = agentsOn(
      history,
      {
        parent: [callTurn('cleaner', { input: 'Delete.' }, 'outer_1')],
        child: [callTurn('delete_file', { path: '/tmp/a' }, 'inner_delete')],
      },
      [remove.definition],
    );
    const paused = await parent.execute({ threadId: 'parent', messages: 'Clean up.' }).result();
    const childThread = paused.interrupts[0]?.nested?.threadId ?? '';

    expect(await parent.abandonPause('parent')).toBe(true);
    expect(await parent.abandonPause('parent')).toBe(false);

    for (const threadId of ['parent', childThread]) {
      expect((await history.loadRuns(threadId)).map((run) => run.status)).toEqual(['cancelled']);
      expectEveryCallAnsweredOnce(await itemsOf(history, threadId));
    }
    const resume = await parent
      .execute({ threadId: 'parent', resolutions: [{ callId: 'outer_1', action: 'approve' }] })
      .result();
    expect(resume.error?.code).toBe('not_paused');
    expect(remove.runs).toEqual([]);
  });

  it('a crash during the nested run: each thread’s call in flight becomes outcome_unknown, never re-run', async () => {
    const inner = new MemoryHistoryStore();
    const tab = new TabStore(inner);
    const runs: string[] = [];
    const started = deferred();
    const transfer = tool({
      name: 'transfer',
      description: 'Transfers money.',
      input: z.object({}),
      execute: async () => {
        runs.push('transfer');
        started.resolve();
        return await new Promise(() => undefined);
      },
    });
    const child = new Agent({
      name: 'payer',
      model: mockModel([callTurn('transfer', {}, 'inner_transfer')]),
      history: tab,
      tools: [transfer],
      leaseMs: 300,
    });
    const parent = new Agent({
      name: 'lead',
      model: mockModel([callTurn('payer', { input: 'Pay.' }, 'outer_1')]),
      history: tab,
      tools: [child.asTool({ description: 'Pays.' })],
      leaseMs: 300,
    });
    const handle = parent.execute({ threadId: 'parent', messages: 'Pay the bill.' });
    const chunks: Chunk[] = [];
    void (async () => {
      for await (const chunk of handle.chunks) chunks.push(chunk);
    })();
    await started.promise;
    tab.die();
    const startedChunk = ofType(chunks, 'tool.nested').find(
      (chunk) => chunk.chunk.type === 'run.started',
    )?.chunk;
    const childThread = startedChunk?.type === 'run.started' ? startedChunk.threadId : '';
    await new Promise((resolve) => setTimeout(resolve, 400));

    // The next page: new agents over the same storage load both threads.
    const reloaded = agentsOn(inner, { parent: [], child: [] }, [transfer]);
    const parentRows = await reloaded.parent.loadThread('parent');
    const childRows = await reloaded.child.loadThread(childThread);

    expect(runs).toEqual(['transfer']);
    for (const rows of [parentRows, childRows]) {
      expect(rows.map((row) => row.status)).toEqual(['failed']);
      expect(rows[0]?.error?.code).toBe('outcome_unknown');
      const items = rows.flatMap((row) => row.items);
      expectEveryCallAnsweredOnce(items);
      const output = items.find((item) => item.type === 'function_call_output');
      expect(output?.type === 'function_call_output' && output.output.error?.code).toBe(
        'outcome_unknown',
      );
    }
    expect(childRows[0]?.parentCall?.callId).toBe('outer_1');
  });

  it('rejects a tool name a provider would refuse', () => {
    const child = new Agent({ name: 'has spaces', model: mockModel([]) });
    expect(() => child.asTool({ description: 'x' })).toThrow(/asTool\(\{ name \}\)/);
    expect(child.asTool({ name: 'helper', description: 'x' }).name).toBe('helper');
  });
});
