import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Model, ModelEvent } from '../model/model.ts';
import { tool } from '../tools/tool.ts';
import type { Tool } from '../tools/tool-types.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  collect,
  deferred,
  expectEveryCallAnsweredOnce,
  scripted,
} from './agent-test-support.ts';
import type { Chunk } from './chunks.ts';

afterEach(closeScriptedModelServers);

/**
 * A tool that runs until its `context.signal` aborts (then rejects with the reason), or gives up
 * after 3 s so a broken abort fails the test instead of hanging it.
 */
function blockingTool() {
  const started = deferred();
  const state = { aborted: false, finishedNormally: false };
  const definition: Tool = tool({
    name: 'block',
    description: 'Runs until aborted.',
    input: z.object({}),
    execute: (_args, context) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          state.finishedNormally = true;
          resolve('finished without being aborted');
        }, 3000);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          state.aborted = true;
          reject(context.signal.reason);
        });
        started.resolve();
      }),
  });
  return { definition, started: started.promise, state };
}

const quickTool = tool({
  name: 'quick',
  description: 'Answers at once.',
  input: z.object({}),
  execute: () => 'quick result',
});

const STOPPED = /stopped before this tool call finished/;

describe('Agent stop()', () => {
  it('during a slow stream ends with run.cancelled and keeps the partial text', async () => {
    // Long enough that the stream is still going, however slow the machine, when the test stops it.
    const fullText = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
    const { server, model } = await scripted([{ text: fullText, delayMs: 40 }]);
    const agent = new Agent({ name: 'test', model });

    const handle = agent.execute({ messages: 'count' });
    const chunks: Chunk[] = [];
    let deltas = 0;
    for await (const chunk of handle.chunks) {
      chunks.push(chunk);
      if (chunk.type === 'text.delta' && ++deltas === 2) handle.stop();
    }
    const result = await handle.result();

    expect(result.status).toBe('cancelled');
    expect(result.error).toBeUndefined();
    expect(chunks.at(-1)?.type).toBe('run.cancelled');
    expect(chunks.some((chunk) => chunk.type === 'run.completed')).toBe(false);
    expect(chunks.some((chunk) => chunk.type === 'run.failed')).toBe(false);
    chunks.forEach((chunk, index) => expect(chunk.sequence).toBe(index));
    const seen = chunks.flatMap((chunk) => (chunk.type === 'text.delta' ? [chunk.delta] : []));
    const partial = seen.join('');
    expect(partial.startsWith('word0 word1 ')).toBe(true);
    expect(partial.length).toBeLessThan(fullText.length);
    expect(result.output).toEqual([
      { type: 'message', role: 'user', content: 'count' },
      { type: 'message', role: 'assistant', content: partial },
    ]);
    const runs = await agent.history.loadRuns(handle.threadId);
    expect(runs).toMatchObject([{ status: 'cancelled', items: result.output }]);
    expect(server.requests).toHaveLength(1);

    handle.stop(); // idempotent
    expect((await handle.result()).status).toBe('cancelled');
  });

  it('while a tool runs aborts its signal and writes a synthetic output for the pending call only', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_block', name: 'block', arguments: {} },
          { id: 'call_quick', name: 'quick', arguments: {} },
        ],
      },
      { text: 'never asked' },
    ]);
    const blocking = blockingTool();
    const agent = new Agent({ name: 'test', model, tools: [quickTool, blocking.definition] });

    const handle = agent.execute({ messages: 'run both' });
    const chunksPromise = collect(handle);
    await blocking.started;
    // Let the quick call settle first.
    await new Promise((resolve) => setTimeout(resolve, 20));
    handle.stop();
    const chunks = await chunksPromise;
    const result = await handle.result();

    expect(blocking.state.aborted).toBe(true);
    expect(blocking.state.finishedNormally).toBe(false);
    expect(result.status).toBe('cancelled');
    expect(chunks.at(-1)?.type).toBe('run.cancelled');
    expect(server.requests).toHaveLength(1);

    // The call that finished was shown as done and keeps its real output; the pending one gets a
    // synthetic error output; both in call order.
    const results = chunks.flatMap((chunk) => (chunk.type === 'tool.result' ? [chunk] : []));
    expect(results.map((chunk) => [chunk.callId, chunk.output])).toEqual([
      ['call_quick', { text: 'quick result' }],
    ]);
    const outputs = result.output.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => item.callId)).toEqual(['call_block', 'call_quick']);
    expect(outputs[0]?.output.isError).toBe(true);
    expect(outputs[0]?.output.text).toMatch(STOPPED);
    expect(outputs[1]?.output).toEqual({ text: 'quick result' });
    expectEveryCallAnsweredOnce(result.output);
    const stored = await agent.history.loadItems(handle.threadId);
    expect(stored).toEqual(result.output);
  });
});

describe('Agent input signal', () => {
  it('aborting it while a tool runs cancels the run like stop()', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_block', name: 'block', arguments: {} }] },
      { text: 'never asked' },
    ]);
    const blocking = blockingTool();
    const agent = new Agent({ name: 'test', model, tools: [blocking.definition] });
    const controller = new AbortController();

    const handle = agent.execute({ messages: 'block', signal: controller.signal });
    const chunksPromise = collect(handle);
    await blocking.started;
    controller.abort();
    const chunks = await chunksPromise;
    const result = await handle.result();

    expect(blocking.state.aborted).toBe(true);
    expect(result.status).toBe('cancelled');
    expect(chunks.at(-1)?.type).toBe('run.cancelled');
    expect(server.requests).toHaveLength(1);
    expect(result.output.at(-1)).toMatchObject({
      type: 'function_call_output',
      callId: 'call_block',
      output: { isError: true, text: expect.stringMatching(STOPPED) },
    });
    expectEveryCallAnsweredOnce(result.output);
  });

  it('aborting it during a slow stream keeps the partial text', async () => {
    const letters =
      'a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n';
    const { model } = await scripted([{ text: letters, delayMs: 40 }]);
    const agent = new Agent({ name: 'test', model });
    const controller = new AbortController();

    const handle = agent.execute({ messages: 'letters', signal: controller.signal });
    let partial = '';
    for await (const chunk of handle.chunks) {
      if (chunk.type !== 'text.delta') continue;
      partial += chunk.delta;
      if (partial.length >= 4) controller.abort();
    }
    const result = await handle.result();

    expect(result.status).toBe('cancelled');
    expect(partial.length).toBeLessThan(letters.length);
    expect(result.output.at(-1)).toEqual({ type: 'message', role: 'assistant', content: partial });
  });

  it('an already aborted signal cancels the run without asking the model for an answer', async () => {
    const controller = new AbortController();
    controller.abort();
    let asked = 0;
    const model: Model = {
      provider: 'test',
      modelId: 'test',
      async *stream(_request, { signal }): AsyncIterable<ModelEvent> {
        asked++;
        signal.throwIfAborted();
        yield { type: 'text.delta', delta: 'should not be seen' };
        yield { type: 'done' };
      },
    };
    const agent = new Agent({ name: 'test', model });

    const handle = agent.execute({ messages: 'hi', signal: controller.signal });
    const chunks = await collect(handle);
    const result = await handle.result();

    expect(result.status).toBe('cancelled');
    expect(chunks.map((chunk) => chunk.type)).toEqual(['run.started', 'run.cancelled']);
    expect(asked).toBeLessThanOrEqual(1);
  });
});

describe('Agent stop() with a hand-written model', () => {
  it('aborts the signal given to the model and ignores events after the stop', async () => {
    const streaming = deferred();
    let modelSignal: AbortSignal | undefined;
    const model: Model = {
      provider: 'test',
      modelId: 'test',
      async *stream(_request, { signal }): AsyncIterable<ModelEvent> {
        modelSignal = signal;
        yield { type: 'text.delta', delta: 'Hello' };
        streaming.resolve();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        throw signal.reason;
      },
    };
    const agent = new Agent({ name: 'test', model });

    const handle = agent.execute({ messages: 'hi' });
    const chunksPromise = collect(handle);
    await streaming.promise;
    handle.stop();
    const chunks = await chunksPromise;
    const result = await handle.result();

    expect(modelSignal?.aborted).toBe(true);
    expect(result.status).toBe('cancelled');
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'run.started',
      'text.delta',
      'run.cancelled',
    ]);
    expect(result.output).toEqual([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: 'Hello' },
    ]);
  });
});
