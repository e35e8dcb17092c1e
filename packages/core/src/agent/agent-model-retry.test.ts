import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedReply,
  type WireFormat,
} from '@switchboard/fixtures';
import { anthropicModel } from '../anthropic/anthropic-model.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { Model } from '../model/model.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { openaiResponsesModel } from '../openai/openai-responses-model.ts';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';
import { expectEveryCallAnsweredOnce, finish, ofType } from './agent-test-support.ts';
import type { ModelRetryPolicy } from './model-retry-policy.ts';

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Small waits, no jitter: the tests never wait on a clock they assert. */
const FAST: ModelRetryPolicy = { initialDelayMs: 5, jitter: 0 };

/** A scripted model server answering `replies` in order, and a model of `format` speaking to it. */
async function serve(
  format: WireFormat,
  replies: ScriptedReply[],
  modelId = 'scripted',
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  servers.push(server);
  const model =
    format === 'anthropic-messages'
      ? anthropicModel({ model: modelId, apiKey: 'x', baseURL: server.url })
      : format === 'responses'
        ? openaiResponsesModel({ model: modelId, apiKey: 'x', baseURL: `${server.url}/v1` })
        : openaiChatModel({ model: modelId, apiKey: 'x', baseURL: `${server.url}/v1` });
  return { server, model };
}

const PROVIDER: Record<WireFormat, string> = {
  'chat-completions': 'openai-chat',
  responses: 'openai-responses',
  'anthropic-messages': 'anthropic',
};

describe.each<WireFormat>(['chat-completions', 'responses', 'anthropic-messages'])(
  'model retries over %s',
  (format) => {
    it('retries a 429 after the Retry-After wait, then answers', async () => {
      const { server, model } = await serve(format, [
        { status: 429, error: 'Slow down.', headers: { 'retry-after': '0' } },
        { text: 'Hello after the wait.' },
      ]);
      // The default backoff would wait 1 s: the provider's Retry-After (0 s) is the wait.
      const agent = new Agent({ name: 'a', model });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      expect(ofType(chunks, 'model.retry')).toEqual([
        expect.objectContaining({
          model: `${PROVIDER[format]}/scripted`,
          attempt: 2,
          maxAttempts: 3,
          delayMs: 0,
          code: 'model_error',
          status: 429,
        }),
      ]);
      expect(ofType(chunks, 'text.done').map((chunk) => chunk.text)).toEqual([
        'Hello after the wait.',
      ]);
      expect(server.requests).toHaveLength(2);
    });

    it('caps a long Retry-After at maxDelayMs', async () => {
      const { model } = await serve(format, [
        { status: 429, error: 'Slow down.', headers: { 'retry-after': '3' } },
        { text: 'ok' },
      ]);
      const agent = new Agent({ name: 'a', model, modelRetry: { maxDelayMs: 10 } });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      expect(ofType(chunks, 'model.retry').map((chunk) => chunk.delayMs)).toEqual([10]);
    });

    it('retries a 503 and a connection reset with exponential backoff', async () => {
      const { server, model } = await serve(format, [
        { status: 503, error: 'Try again later.' },
        { resetConnection: true },
        { text: 'Third time lucky.' },
      ]);
      const agent = new Agent({ name: 'a', model, modelRetry: FAST });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      const retries = ofType(chunks, 'model.retry');
      expect(retries.map(({ attempt, delayMs, status }) => ({ attempt, delayMs, status }))).toEqual(
        [
          { attempt: 2, delayMs: 5, status: 503 },
          { attempt: 3, delayMs: 10, status: undefined },
        ],
      );
      expect(server.requests).toHaveLength(3);
      // The history holds one answer, and the row keeps the failed attempts.
      const rows = await agent.history.loadRuns(result.threadId);
      expect(rows[0]?.items.filter((item) => item.type === 'message')).toHaveLength(2);
      expect(rows[0]?.modelFailures).toEqual([
        expect.objectContaining({ attempt: 1, status: 503, then: { action: 'retry', delayMs: 5 } }),
        expect.objectContaining({
          attempt: 2,
          code: 'model_error',
          then: { action: 'retry', delayMs: 10 },
        }),
      ]);
    });

    it('retries a stream cut before any output', async () => {
      const { server, model } = await serve(format, [
        { text: 'lost', cutAfterChunks: 1 },
        { text: 'Complete answer.' },
      ]);
      const agent = new Agent({ name: 'a', model, modelRetry: FAST });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      expect(ofType(chunks, 'model.retry')).toHaveLength(1);
      expect(
        ofType(chunks, 'text.delta')
          .map((chunk) => chunk.delta)
          .join(''),
      ).toBe('Complete answer.');
      expect(server.requests).toHaveLength(2);
    });

    it('never retries a stream that failed after text was shown, and keeps that text once', async () => {
      const { server, model } = await serve(format, [
        { text: 'one two three four five six seven', cutAfterChunks: 5 },
        { text: 'never asked' },
      ]);
      const agent = new Agent({ name: 'a', model, modelRetry: FAST });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('model_error');
      expect(ofType(chunks, 'model.retry')).toEqual([]);
      expect(server.requests).toHaveLength(1);
      const shown = ofType(chunks, 'text.delta')
        .map((chunk) => chunk.delta)
        .join('');
      expect(shown).not.toBe('');
      const [row] = await agent.history.loadRuns(result.threadId);
      expect(
        row?.items.filter((item) => item.type === 'message' && item.role === 'assistant'),
      ).toEqual([{ type: 'message', role: 'assistant', content: shown }]);
    });

    it.each([400, 401, 403, 404])('never retries HTTP %i', async (status) => {
      const { server, model } = await serve(format, [{ status, error: 'No.' }, { text: 'x' }]);
      const fallback = await serve(format, [{ text: 'from the fallback' }], 'backup');
      const agent = new Agent({
        name: 'a',
        model,
        modelRetry: FAST,
        fallbackModels: [fallback.model],
      });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('failed');
      expect(result.error?.details).toMatchObject({ status });
      expect(ofType(chunks, 'model.retry')).toEqual([]);
      expect(ofType(chunks, 'model.fallback')).toEqual([]);
      expect(server.requests).toHaveLength(1);
      expect(fallback.server.requests).toHaveLength(0);
    });

    it('falls back at once on an overloaded error event before any output', async () => {
      const primary = await serve(format, [{ text: 'lost', streamError: { afterChunks: 1 } }]);
      const backup = await serve(format, [{ text: 'From the backup.' }], 'backup');
      const agent = new Agent({
        name: 'a',
        model: primary.model,
        modelRetry: FAST,
        fallbackModels: [backup.model],
      });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      expect(ofType(chunks, 'model.retry')).toEqual([]);
      expect(ofType(chunks, 'model.fallback')).toEqual([
        expect.objectContaining({ to: `${PROVIDER[format]}/backup`, code: 'model_error' }),
      ]);
      expect(
        ofType(chunks, 'text.delta')
          .map((chunk) => chunk.delta)
          .join(''),
      ).toBe('From the backup.');
    });

    it('retries a server error event before any output on the same model', async () => {
      const type = format === 'anthropic-messages' ? 'api_error' : 'server_error';
      const { server, model } = await serve(format, [
        { text: 'lost', streamError: { afterChunks: 1, type, message: 'Internal error' } },
        { text: 'Recovered.' },
      ]);
      const agent = new Agent({ name: 'a', model, modelRetry: FAST });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      expect(ofType(chunks, 'model.retry')).toEqual([
        expect.objectContaining({ attempt: 2, code: 'model_error', delayMs: 5 }),
      ]);
      expect(server.requests).toHaveLength(2);
    });

    it('never retries after an error event that followed text', async () => {
      const { server, model } = await serve(format, [
        { text: 'one two three four five six', streamError: { afterChunks: 5 } },
        { text: 'never asked' },
      ]);
      const backup = await serve(format, [{ text: 'never asked either' }], 'backup');
      const agent = new Agent({
        name: 'a',
        model,
        modelRetry: FAST,
        fallbackModels: [backup.model],
      });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('failed');
      expect(ofType(chunks, 'text.delta').length).toBeGreaterThan(0);
      expect(ofType(chunks, 'model.retry')).toEqual([]);
      expect(ofType(chunks, 'model.fallback')).toEqual([]);
      expect(server.requests).toHaveLength(1);
      expect(backup.server.requests).toHaveLength(0);
    });

    it('falls back at once when the provider says it is overloaded', async () => {
      const overloaded: ScriptedReply =
        format === 'anthropic-messages'
          ? { status: 529, error: 'Overloaded' }
          : { status: 503, error: 'The engine is currently overloaded, please try again later.' };
      const primary = await serve(format, [overloaded, { text: 'never asked' }]);
      const backup = await serve(
        format,
        [{ text: 'From the backup.' }, { text: 'Again.' }],
        'backup',
      );
      const agent = new Agent({
        name: 'a',
        model: primary.model,
        modelRetry: FAST,
        fallbackModels: [backup.model],
      });
      const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
      expect(result.status).toBe('completed');
      expect(ofType(chunks, 'model.retry')).toEqual([]);
      expect(ofType(chunks, 'model.fallback')).toEqual([
        expect.objectContaining({
          from: `${PROVIDER[format]}/scripted`,
          to: `${PROVIDER[format]}/backup`,
          status: overloaded.status,
        }),
      ]);
      expect(primary.server.requests).toHaveLength(1);
      expect(backup.server.requests).toHaveLength(1);
    });
  },
);

describe('model retries in the run loop', () => {
  it('falls back after the retries of a failing model, and keeps the fallback for the run', async () => {
    const primary = await serve('chat-completions', [{ status: 500, error: 'Down.' }]);
    const calls: number[] = [];
    const add = tool({
      name: 'add',
      description: 'Adds two numbers.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        calls.push(a + b);
        return String(a + b);
      },
    });
    const backup = await serve(
      'anthropic-messages',
      [{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'It is 5.' }],
      'backup',
    );
    const agent = new Agent({
      name: 'a',
      model: primary.model,
      tools: [add],
      modelRetry: { ...FAST, maxAttempts: 2 },
      fallbackModels: [backup.model],
    });
    const { chunks, result } = await finish(agent.execute({ messages: 'what is 2 plus 3?' }));
    expect(result.status).toBe('completed');
    expect(
      chunks
        .filter((chunk) => chunk.type === 'model.retry' || chunk.type === 'model.fallback')
        .map((chunk) => chunk.type),
    ).toEqual(['model.retry', 'model.fallback']);
    // Two attempts on the primary in turn 1; turn 2 goes straight to the backup.
    expect(primary.server.requests).toHaveLength(2);
    expect(backup.server.requests).toHaveLength(2);
    expect(calls).toEqual([5]);
  });

  it('retries a later turn without running its tools again', async () => {
    const runs: string[] = [];
    const remember = tool({
      name: 'remember',
      description: 'Stores a note (a side effect).',
      input: z.object({ note: z.string() }),
      execute: ({ note }) => {
        runs.push(note);
        return 'stored';
      },
    });
    const { server, model } = await serve('responses', [
      { toolCalls: [{ name: 'remember', arguments: { note: 'milk' } }] },
      { status: 502, error: 'Bad gateway.' },
      { resetConnection: true },
      { text: 'Noted.' },
    ]);
    const agent = new Agent({ name: 'a', model, tools: [remember], modelRetry: FAST });
    const { chunks, result } = await finish(agent.execute({ messages: 'remember milk' }));
    expect(result.status).toBe('completed');
    expect(runs).toEqual(['milk']);
    expect(ofType(chunks, 'model.retry')).toHaveLength(2);
    expect(ofType(chunks, 'tool.result')).toHaveLength(1);
    // The first model call (the tool call) is never made again; the retries carry its output.
    expect(server.requests).toHaveLength(4);
    for (const request of server.requests.slice(1)) {
      expect(request.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    }
    const [row] = await agent.history.loadRuns(result.threadId);
    expectEveryCallAnsweredOnce(row?.items ?? []);
  });

  it('keeps the failed attempts across a pause and a resume by a new agent, and never repeats the stored call', async () => {
    const deleted: string[] = [];
    const deleteFile = tool({
      name: 'delete_file',
      description: 'Deletes a file.',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => {
        deleted.push(path);
        return `Deleted ${path}.`;
      },
    });
    const { server, model } = await serve('chat-completions', [
      { status: 503, error: 'Try again.' },
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'notes.txt' } }] },
      { text: 'Deleted.' },
    ]);
    const history = new MemoryHistoryStore();
    const options = { name: 'a', model, tools: [deleteFile], history, modelRetry: FAST };
    const paused = await new Agent(options).execute({ messages: 'delete notes.txt' }).result();
    expect(paused.status).toBe('paused');
    expect(server.requests).toHaveLength(2);

    // A reload: a new Agent over the same history answers the approval.
    const [call] = paused.interrupts;
    const resumed = await new Agent(options)
      .execute({
        threadId: paused.threadId,
        resolutions: [{ callId: call?.callId ?? '', action: 'approve' }],
      })
      .result();
    expect(resumed.status).toBe('completed');
    expect(deleted).toEqual(['notes.txt']);
    // The stored tool-call answer was not asked for again: one more request, for the last turn.
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]?.messages.at(-1)).toMatchObject({ role: 'tool' });
    const [row] = await history.loadRuns(paused.threadId);
    expect(row?.modelFailures).toEqual([
      expect.objectContaining({ attempt: 1, status: 503, then: { action: 'retry', delayMs: 5 } }),
    ]);
    expectEveryCallAnsweredOnce(row?.items ?? []);
  });

  it('never retries a Responses error event that blames the request', async () => {
    const { server, model } = await serve('responses', [
      { streamError: { afterChunks: 1, type: 'invalid_prompt', message: 'Invalid prompt' } },
      { text: 'never asked' },
    ]);
    const agent = new Agent({ name: 'a', model, modelRetry: FAST });
    const { chunks, result } = await finish(agent.execute({ messages: 'hi' }));
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('Invalid prompt');
    expect(ofType(chunks, 'model.retry')).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('stops at once during a retry wait', async () => {
    const { server, model } = await serve('chat-completions', [
      { status: 429, error: 'Slow down.', headers: { 'retry-after': '3600' } },
      { text: 'never asked' },
    ]);
    const agent = new Agent({
      name: 'a',
      model,
      history: new MemoryHistoryStore(),
      modelRetry: { maxDelayMs: 3_600_000, totalTimeoutMs: 7_200_000 },
    });
    const handle = agent.execute({ messages: 'hi' });
    const seen: string[] = [];
    for await (const chunk of handle.chunks) {
      seen.push(chunk.type);
      if (chunk.type === 'model.retry') {
        expect(chunk.delayMs).toBe(3_600_000);
        handle.stop();
      }
    }
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(seen.at(-1)).toBe('run.cancelled');
    expect(server.requests).toHaveLength(1);
    const [row] = await agent.history.loadRuns(result.threadId);
    expect(row?.status).toBe('cancelled');
    expect(row?.modelFailures).toHaveLength(1);
  });

  it('takes the run policy over the agent policy', async () => {
    const { server, model } = await serve('chat-completions', [
      { status: 500, error: 'Down.' },
      { text: 'never asked' },
    ]);
    const agent = new Agent({ name: 'a', model, modelRetry: FAST });
    const { chunks, result } = await finish(
      agent.execute({ messages: 'hi', modelRetry: { maxAttempts: 1 } }),
    );
    expect(result.status).toBe('failed');
    expect(ofType(chunks, 'model.retry')).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(() => agent.execute({ messages: 'hi', modelRetry: { maxAttempts: 0 } })).toThrow(
      /maxAttempts/,
    );
    expect(() => new Agent({ name: 'a', model, modelRetry: { jitter: 2 } })).toThrow(/jitter/);
  });

  it('takes the run fallback models instead of the agent ones', async () => {
    const primary = await serve('chat-completions', [{ status: 529, error: 'Overloaded' }]);
    const agentBackup = await serve('chat-completions', [{ text: 'agent backup' }], 'agent-backup');
    const runBackup = await serve('anthropic-messages', [{ text: 'run backup' }], 'run-backup');
    const agent = new Agent({
      name: 'a',
      model: primary.model,
      modelRetry: FAST,
      fallbackModels: [agentBackup.model],
    });
    const { chunks, result } = await finish(
      agent.execute({ messages: 'hi', fallbackModels: [runBackup.model] }),
    );
    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'model.fallback').map((chunk) => chunk.to)).toEqual([
      'anthropic/run-backup',
    ]);
    expect(agentBackup.server.requests).toHaveLength(0);

    // `[]`: no fallback for this run; the overloaded model is retried, then the run fails.
    const alone = await finish(agent.execute({ messages: 'hi', fallbackModels: [] }));
    expect(alone.result.status).toBe('failed');
    expect(ofType(alone.chunks, 'model.retry')).toHaveLength(2);
    expect(ofType(alone.chunks, 'model.fallback')).toEqual([]);
    expect(agentBackup.server.requests).toHaveLength(0);
  });
});
