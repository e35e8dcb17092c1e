import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { RunRecord } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { Item } from '../vocabulary/items.ts';
import type { Model } from '../model/model.ts';
import { tool } from '../tools/tool.ts';
import type { ToolContext } from '../tools/tool-types.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  collect,
  deferred,
  expectEveryCallAnsweredOnce as expectEachCallAnsweredOnce,
  expectNoOrphanOutputs,
  ofType,
  scripted,
  toolMessage,
} from './agent-test-support.ts';

afterEach(closeScriptedModelServers);

/**
 * docs/architecture.md, "Invariants", both ways: every function_call has exactly one
 * function_call_output,
 * after it, and no function_call_output lacks its function_call.
 */
function expectEveryCallAnsweredOnce(items: readonly Item[]): void {
  expectEachCallAnsweredOnce(items);
  expectNoOrphanOutputs(items);
}

/** Rejects with `message` when `promise` has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const addTool = (calls: { args: unknown; context: ToolContext }[] = []) =>
  tool({
    name: 'add',
    description: 'Adds two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    execute: (args, context) => {
      calls.push({ args, context });
      return String(args.a + args.b);
    },
  });

describe('Agent.execute', () => {
  it('returns the run handle at once, before the model is asked anything', async () => {
    const { server, model } = await scripted([{ text: 'Hello there.' }]);
    const agent = new Agent({ name: 'test', model });

    const handle = agent.execute({ messages: 'hi', threadId: 'thread-1' });

    expect('then' in handle).toBe(false);
    expect(handle.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(handle.threadId).toBe('thread-1');
    expect(typeof handle.stop).toBe('function');
    expect(server.requests).toHaveLength(0);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.runId).toBe(handle.runId);
    expect(server.requests).toHaveLength(1);
  });

  it('throws invalid_input when there is no message', () => {
    const agent = new Agent({ name: 'test', model: {} as Model });
    expect(() => agent.execute({ messages: [] })).toThrowError(
      expect.objectContaining({ code: 'invalid_input' }),
    );
  });

  it('streams run.started, text.delta…, text.done, run.completed with runId and sequence 0,1,2…', async () => {
    const { server, model } = await scripted([{ text: 'Hello there, dear friend.' }]);
    const agent = new Agent({ name: 'test', instructions: 'Be kind.', model });

    const handle = agent.execute({ messages: 'hi' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'run.started',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.done',
      'run.completed',
    ]);
    chunks.forEach((chunk, index) => {
      expect(chunk.runId).toBe(handle.runId);
      expect(chunk.sequence).toBe(index);
    });
    expect(ofType(chunks, 'run.started')[0]?.threadId).toBe(handle.threadId);
    const deltas = ofType(chunks, 'text.delta').map((chunk) => chunk.delta);
    expect(deltas.join('')).toBe('Hello there, dear friend.');
    expect(ofType(chunks, 'text.done')[0]?.text).toBe('Hello there, dear friend.');

    const expectedOutput: Item[] = [
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: 'Hello there, dear friend.' },
    ];
    expect(ofType(chunks, 'run.completed')[0]?.output).toEqual(expectedOutput);
    expect(result.output).toEqual(expectedOutput);
    expect(result.threadId).toBe(handle.threadId);

    // A second, late consumer sees the whole run too.
    expect(await collect(handle)).toEqual(chunks);

    expect(server.requests[0]?.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(server.requests[0]?.tools).toBeUndefined();
  });

  it('runs a local tool: tool.call with parsed arguments, tool.result, then the final text', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_add', name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The answer is 5.' },
    ]);
    const calls: { args: unknown; context: ToolContext }[] = [];
    const agent = new Agent({ name: 'test', model, tools: [addTool(calls)] });

    const handle = agent.execute({ messages: 'what is 2 plus 3?', runContext: { user: 'ada' } });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'run.started',
      'tool.call',
      'tool.result',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.done',
      'run.completed',
    ]);
    expect(ofType(chunks, 'tool.call')[0]).toMatchObject({
      callId: 'call_add',
      toolName: 'add',
      arguments: { a: 2, b: 3 },
    });
    expect(ofType(chunks, 'tool.call')[0]).not.toHaveProperty('server');
    expect(ofType(chunks, 'tool.result')[0]).toMatchObject({
      callId: 'call_add',
      toolName: 'add',
      output: { text: '5' },
    });

    expect(calls).toHaveLength(1);
    expect(calls[0]?.args).toEqual({ a: 2, b: 3 });
    expect(calls[0]?.context).toMatchObject({
      callId: 'call_add',
      threadId: handle.threadId,
      runId: handle.runId,
      runContext: { user: 'ada' },
    });

    expect(result.status).toBe('completed');
    expect(result.output).toEqual([
      { type: 'message', role: 'user', content: 'what is 2 plus 3?' },
      { type: 'function_call', callId: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' },
      { type: 'function_call_output', callId: 'call_add', output: { text: '5' } },
      { type: 'message', role: 'assistant', content: 'The answer is 5.' },
    ]);

    // The model was offered the tool with its JSON Schema, and saw the result on the next turn.
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'add',
          description: 'Adds two numbers.',
          parameters: expect.objectContaining({
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: 'number' } },
            required: ['a', 'b'],
          }),
        },
      },
    ]);
    const second = server.requests[1]?.messages ?? [];
    expect(second.slice(0, 2)).toEqual([
      { role: 'user', content: 'what is 2 plus 3?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_add',
            type: 'function',
            function: { name: 'add', arguments: '{"a":2,"b":3}' },
          },
        ],
      },
    ]);
    expect(toolMessage(second, 'call_add')).toBe('5');
  });

  it('runs the tool calls of one turn concurrently and keeps their outputs in call order', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_first', name: 'first', arguments: {} },
          { id: 'call_second', name: 'second', arguments: {} },
        ],
      },
      { text: 'Both done.' },
    ]);
    const firstStarted = deferred();
    const secondStarted = deferred();
    const first = tool({
      name: 'first',
      description: 'Waits for second to start, then finishes last.',
      input: z.object({}),
      execute: async () => {
        firstStarted.resolve();
        await within(secondStarted.promise, 2000, 'second did not start while first was running');
        await sleep(30);
        return 'first done';
      },
    });
    const second = tool({
      name: 'second',
      description: 'Waits for first to start, then finishes first.',
      input: z.object({}),
      execute: async () => {
        secondStarted.resolve();
        await within(firstStarted.promise, 2000, 'first did not start while second was running');
        return 'second done';
      },
    });
    const agent = new Agent({ name: 'test', model, tools: [first, second] });

    const handle = agent.execute({ messages: 'go' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(result.status).toBe('completed');
    // Both tool.call chunks come before any result; results arrive in completion order …
    expect(
      chunks
        .filter((chunk) => chunk.type === 'tool.call' || chunk.type === 'tool.result')
        .map((chunk) => `${chunk.type}:${'callId' in chunk ? chunk.callId : ''}`),
    ).toEqual([
      'tool.call:call_first',
      'tool.call:call_second',
      'tool.result:call_second',
      'tool.result:call_first',
    ]);
    // … but the outputs in history and to the model are in call order.
    const outputs = result.output.filter((item) => item.type === 'function_call_output');
    expect(outputs).toEqual([
      { type: 'function_call_output', callId: 'call_first', output: { text: 'first done' } },
      { type: 'function_call_output', callId: 'call_second', output: { text: 'second done' } },
    ]);
    const messages = server.requests[1]?.messages ?? [];
    expect(messages.filter((message) => message.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_first', content: 'first done' },
      { role: 'tool', tool_call_id: 'call_second', content: 'second done' },
    ]);
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    expectEveryCallAnsweredOnce(result.output);
  });

  it('sums usage over every model call of the run', async () => {
    const { model } = await scripted([
      {
        toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 2 } }],
        usage: { promptTokens: 11, completionTokens: 7 },
      },
      {
        toolCalls: [{ id: 'c2', name: 'add', arguments: { a: 3, b: 4 } }],
        usage: { promptTokens: 19, completionTokens: 3 },
      },
      { text: 'Done.', usage: { promptTokens: 23, completionTokens: 5 } },
    ]);
    const agent = new Agent({ name: 'test', model, tools: [addTool()] });

    const handle = agent.execute({ messages: 'add things' });
    const chunks = await collect(handle);
    const result = await handle.result();

    const expected = { inputTokens: 53, outputTokens: 15 };
    expect(result.usage).toEqual(expected);
    expect(ofType(chunks, 'run.completed')[0]?.usage).toEqual(expected);
    const [run] = await agent.history.loadRuns(handle.threadId);
    expect(run?.usage).toEqual(expected);
  });
});

describe('Agent tool failures reach the model as error outputs', () => {
  it('invalid arguments (zod) become an error output the model reads, and the run goes on', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_bad', name: 'add', arguments: { a: 'two', b: 3 } }] },
      { text: 'Sorry, let me fix that.' },
    ]);
    const calls: { args: unknown; context: ToolContext }[] = [];
    const agent = new Agent({ name: 'test', model, tools: [addTool(calls)] });

    const handle = agent.execute({ messages: 'add two and 3' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(calls).toHaveLength(0);
    const output = ofType(chunks, 'tool.result')[0]?.output;
    expect(output?.isError).toBe(true);
    expect(output?.error?.code).toBe('invalid_tool_arguments');
    expect(output?.text).toContain('Invalid arguments for add');
    expect(output?.text).toContain('expected number');
    const sent = toolMessage(server.requests[1]?.messages ?? [], 'call_bad');
    expect(sent).toMatch(/^Error: Invalid arguments for add/);
    expect(sent).toContain('expected number, received string');
    expect(sent).toContain('at a');
    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'text.done')[0]?.text).toBe('Sorry, let me fix that.');
    expect(chunks.at(-1)?.type).toBe('run.completed');
  });

  it('an arguments string that is not JSON becomes an error output', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_json', name: 'add', arguments: '{"a": 2, "b":' }] },
      { text: 'Retrying.' },
    ]);
    const calls: { args: unknown; context: ToolContext }[] = [];
    const agent = new Agent({ name: 'test', model, tools: [addTool(calls)] });

    const handle = agent.execute({ messages: 'add' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(calls).toHaveLength(0);
    // The raw string is shown as it is.
    expect(ofType(chunks, 'tool.call')[0]?.arguments).toBe('{"a": 2, "b":');
    const output = ofType(chunks, 'tool.result')[0]?.output;
    expect(output).toMatchObject({ isError: true, error: { code: 'invalid_tool_arguments' } });
    const sent = toolMessage(server.requests[1]?.messages ?? [], 'call_json');
    expect(sent).toMatch(/^Error: /);
    expect(sent).toContain('not valid JSON');
    expect(sent).toContain('{"a": 2, "b":');
    expect(result.status).toBe('completed');
    expect(result.output.at(-1)).toEqual({
      type: 'message',
      role: 'assistant',
      content: 'Retrying.',
    });
  });

  it('an unknown tool name becomes an error output', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_missing', name: 'multiply', arguments: { a: 2, b: 3 } }] },
      { text: 'I cannot multiply.' },
    ]);
    const agent = new Agent({ name: 'test', model, tools: [addTool()] });

    const handle = agent.execute({ messages: 'multiply' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(ofType(chunks, 'tool.result')[0]?.output).toMatchObject({
      isError: true,
      error: { code: 'tool_not_found' },
    });
    expect(toolMessage(server.requests[1]?.messages ?? [], 'call_missing')).toBe(
      'Error: Unknown tool "multiply".',
    );
    expect(result.status).toBe('completed');
    expectEveryCallAnsweredOnce(result.output);
  });

  it('a tool that throws becomes an error output and the run completes', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_boom', name: 'boom', arguments: {} }] },
      { text: 'The tool failed.' },
    ]);
    const boom = tool({
      name: 'boom',
      description: 'Always fails.',
      input: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const agent = new Agent({ name: 'test', model, tools: [boom] });

    const handle = agent.execute({ messages: 'boom' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(ofType(chunks, 'tool.result')[0]?.output).toEqual({
      text: 'boom failed: disk on fire',
      isError: true,
      error: { code: 'tool_execution_failed', message: 'boom failed: disk on fire' },
    });
    expect(toolMessage(server.requests[1]?.messages ?? [], 'call_boom')).toBe(
      'Error: boom failed: disk on fire',
    );
    expect(result.status).toBe('completed');
    expect(chunks.at(-1)?.type).toBe('run.completed');
  });
});

describe('Agent run failures', () => {
  it('ends with run.failed max_turns_exceeded after maxTurns model calls, every call answered', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
    ]);
    const agent = new Agent({ name: 'test', model, tools: [addTool()], maxTurns: 2 });

    const handle = agent.execute({ messages: 'loop forever' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(server.requests).toHaveLength(2);
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(SwitchboardError);
    expect(result.error?.code).toBe('max_turns_exceeded');
    const last = chunks.at(-1);
    expect(last?.type).toBe('run.failed');
    expect(last?.type === 'run.failed' && last.error.code).toBe('max_turns_exceeded');
    expect(ofType(chunks, 'run.completed')).toHaveLength(0);
    expect(result.output.filter((item) => item.type === 'function_call')).toHaveLength(2);
    expectEveryCallAnsweredOnce(result.output);

    const runs = await agent.history.loadRuns(handle.threadId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'failed', error: { code: 'max_turns_exceeded' } });
    expectEveryCallAnsweredOnce(runs[0]?.items ?? []);
  });

  it('rejects maxTurns below 1', () => {
    expect(() => new Agent({ name: 'test', model: {} as Model, maxTurns: 0 })).toThrowError(
      expect.objectContaining({ code: 'invalid_input' }),
    );
  });

  it.each([500, 401])(
    'a model HTTP %i ends with run.failed model_error and consistent history',
    async (status) => {
      const { server, model } = await scripted([{ status, error: `Scripted HTTP ${status}` }]);
      // Retries off: a 500 would be retried (agent-model-retry.test.ts), a 401 never is.
      const agent = new Agent({ name: 'test', model, modelRetry: { maxAttempts: 1 } });

      const handle = agent.execute({ messages: 'hi' });
      const chunks = await collect(handle);
      const result = await handle.result();

      expect(server.requests).toHaveLength(1);
      expect(chunks.map((chunk) => chunk.type)).toEqual(['run.started', 'run.failed']);
      const failed = ofType(chunks, 'run.failed')[0];
      expect(failed?.error.code).toBe('model_error');
      expect(failed?.error.details).toEqual({ status });
      expect(failed?.error.message).toContain(String(status));
      expect(result).toMatchObject({ status: 'failed', error: { code: 'model_error' } });
      expect(result.output).toEqual([{ type: 'message', role: 'user', content: 'hi' }]);

      const runs = await agent.history.loadRuns(handle.threadId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        runId: handle.runId,
        status: 'failed',
        items: [{ type: 'message', role: 'user', content: 'hi' }],
        error: { code: 'model_error' },
      });
    },
  );

  it('a model error after a tool turn keeps every call answered in history', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 2 } }] },
      // A 400: not retried (see model-retry-policy.ts), so the run fails after the tool turn.
      { status: 400, error: 'Bad request' },
    ]);
    const agent = new Agent({ name: 'test', model, tools: [addTool()] });

    const handle = agent.execute({ messages: 'add' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'failed', error: { code: 'model_error' } });
    const items = await agent.history.loadItems(handle.threadId);
    expect(items).toEqual(result.output);
    expect(items).toContainEqual({
      type: 'function_call_output',
      callId: 'c1',
      output: { text: '3' },
    });
    expectEveryCallAnsweredOnce(items);
  });
});

describe('Agent history failures', () => {
  /** A store that cannot save a running run once it holds a call without an output. */
  class FailingAfterCallsStore extends MemoryHistoryStore {
    override async compareAndSetRun(run: RunRecord, expectedVersion: number) {
      const calls = run.items.filter((item) => item.type === 'function_call').length;
      const outputs = run.items.filter((item) => item.type === 'function_call_output').length;
      if (run.status === 'running' && calls > outputs) throw new Error('disk full');
      return await super.compareAndSetRun(run, expectedVersion);
    }
  }

  it('a failed save after the model called tools ends with history_error, every call answered', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 2 } }] },
      { text: 'never asked' },
    ]);
    const calls: { args: unknown; context: ToolContext }[] = [];
    const history = new FailingAfterCallsStore();
    const agent = new Agent({ name: 'test', model, tools: [addTool(calls)], history });

    const handle = agent.execute({ messages: 'add' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(server.requests).toHaveLength(1);
    expect(calls).toHaveLength(0);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('history_error');
    expect(result.error?.message).toContain('disk full');
    const last = chunks.at(-1);
    expect(last?.type === 'run.failed' && last.error.code).toBe('history_error');
    expect(result.output.at(-1)).toMatchObject({
      type: 'function_call_output',
      callId: 'c1',
      output: { isError: true, text: 'The run failed before this tool call finished.' },
    });
    expectEveryCallAnsweredOnce(result.output);
    const [run] = await history.loadRuns(handle.threadId);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'history_error' } });
    expectEveryCallAnsweredOnce(run?.items ?? []);
  });

  it('a thread that cannot be loaded ends with history_error before the model is asked', async () => {
    const { server, model } = await scripted([{ text: 'never asked' }]);
    const history = new MemoryHistoryStore();
    const fail = async (): Promise<never> => {
      throw new Error('database closed');
    };
    history.loadRuns = fail;
    history.loadItems = fail;
    history.loadRunChanges = fail;
    const agent = new Agent({ name: 'test', model, history });

    const result = await agent.execute({ messages: 'hi' }).result();

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('history_error');
    expect(result.error?.message).toContain('database closed');
    expect(server.requests).toHaveLength(0);
  });
});

describe('Agent tool progress', () => {
  it('emits tool.progress only when progress increases, and never after the call settled', async () => {
    const { model } = await scripted([
      {
        toolCalls: [
          { id: 'call_work', name: 'work', arguments: {} },
          { id: 'call_late', name: 'late', arguments: {} },
        ],
      },
      { text: 'Finished.' },
    ]);
    let workContext: ToolContext | undefined;
    const workDone = deferred();
    const work = tool({
      name: 'work',
      description: 'Reports progress.',
      input: z.object({}),
      execute: (_args, context) => {
        workContext = context;
        context.reportProgress({ progress: 1, total: 4 });
        context.reportProgress({ progress: 1, total: 4 });
        context.reportProgress({ progress: 0.5, total: 4 });
        context.reportProgress({ progress: 2, total: 4, message: 'half way' });
        context.reportProgress({ progress: 3 });
        workDone.resolve();
        return 'worked';
      },
    });
    const late = tool({
      name: 'late',
      description: 'Reports progress for work after work settled.',
      input: z.object({}),
      execute: async () => {
        await workDone.promise;
        await sleep(20);
        workContext?.reportProgress({ progress: 99, total: 100 });
        return 'late done';
      },
    });
    const agent = new Agent({ name: 'test', model, tools: [work, late] });

    const handle = agent.execute({ messages: 'work' });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(workContext).toBeDefined();
    const progress = ofType(chunks, 'tool.progress');
    expect(
      progress.map(({ type, callId, toolName, progress, total, message }) => ({
        type,
        callId,
        toolName,
        progress,
        total,
        message,
      })),
    ).toEqual([
      {
        type: 'tool.progress',
        callId: 'call_work',
        toolName: 'work',
        progress: 1,
        total: 4,
        message: undefined,
      },
      {
        type: 'tool.progress',
        callId: 'call_work',
        toolName: 'work',
        progress: 2,
        total: 4,
        message: 'half way',
      },
      {
        type: 'tool.progress',
        callId: 'call_work',
        toolName: 'work',
        progress: 3,
        total: undefined,
        message: undefined,
      },
    ]);
    const workResult = chunks.find(
      (chunk) => chunk.type === 'tool.result' && chunk.callId === 'call_work',
    );
    for (const chunk of progress) expect(chunk.sequence).toBeLessThan(workResult?.sequence ?? 0);
    // Progress is never stored in history.
    expect(JSON.stringify(result.output)).not.toContain('half way');
  });
});
