import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HistoryStore } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { JsonlHistoryStore } from '../node/jsonl-history-store.ts';
import type { ScriptedReply } from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { ToolResume } from '../vocabulary/interrupts.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  deferred,
  expectEveryCallAnsweredOnce,
  finish,
  ofType,
  scripted,
  toolMessage,
} from './agent-test-support.ts';
import type { Chunk } from './chunks.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await closeScriptedModelServers();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Chunks of one run id, over several handles in order, are numbered 0, 1, 2… without reuse. */
function expectOneNumbering(chunks: readonly Chunk[]): void {
  expect(new Set(chunks.map((chunk) => chunk.runId)).size).toBe(1);
  chunks.forEach((chunk, index) => expect(chunk.sequence).toBe(index));
}

/** A tool that needs approval and records its runs. */
function guardedTool(): { definition: Tool; runs: unknown[] } {
  const runs: unknown[] = [];
  const definition = tool({
    name: 'delete_file',
    description: 'Deletes a file.',
    input: z.object({ path: z.string() }),
    annotations: { destructiveHint: true },
    needsApproval: true,
    execute: ({ path }) => {
      runs.push(path);
      return `deleted ${path}`;
    },
  });
  return { definition, runs };
}

const DELETE_CALL: ScriptedReply = {
  toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { path: '/tmp/a' } }],
};

const PEOPLE_SCHEMA = {
  type: 'object',
  properties: { people: { type: 'integer', minimum: 1 } },
  required: ['people'],
};

/**
 * An MRTR-style tool: the first run ends with `context.interrupt` (a form, resume state
 * `{ token: 'abc' }`); a re-run reads `context.resume`.
 */
function formTool(): { definition: Tool; resumes: (ToolResume | undefined)[] } {
  const resumes: (ToolResume | undefined)[] = [];
  const definition = tool({
    name: 'book_table',
    description: 'Books a table.',
    input: z.object({ restaurant: z.string() }),
    execute: (_args, context) => {
      resumes.push(context.resume);
      if (context.resume === undefined) {
        return context.interrupt(
          { mode: 'form', message: 'How many people?', requestedSchema: PEOPLE_SCHEMA },
          { token: 'abc' },
        );
      }
      const { resolution, resumeState } = context.resume;
      return `${resolution.action} ${JSON.stringify(resolution.content ?? null)} ${JSON.stringify(resumeState)}`;
    },
  });
  return { definition, resumes };
}

const BOOK_CALL: ScriptedReply = {
  toolCalls: [{ id: 'call_book', name: 'book_table', arguments: { restaurant: 'Chez Ada' } }],
};

/**
 * A 2025-style tool: waits on `context.requestInput` (url mode) while its call stays open; a
 * re-run (after the live call was lost) reads `context.resume`.
 */
function liveTool(): { definition: Tool; executions: (ToolResume | undefined)[] } {
  const executions: (ToolResume | undefined)[] = [];
  const definition = tool({
    name: 'sign_in',
    description: 'Signs the user in with their browser.',
    input: z.object({}),
    execute: async (_args, context) => {
      executions.push(context.resume);
      if (context.resume !== undefined) {
        return `re-run: ${context.resume.resolution.action} ${JSON.stringify(context.resume.resumeState)}`;
      }
      const answer = await context.requestInput(
        { mode: 'url', url: 'https://auth.example.com/start', message: 'Sign in, please.' },
        { kind: 'pushed' },
      );
      return `live: ${answer.action}`;
    },
  });
  return { definition, executions };
}

const SIGN_IN_CALL: ScriptedReply = {
  toolCalls: [{ id: 'call_sign', name: 'sign_in', arguments: {} }],
};

/**
 * Pauses on an approval with one agent and store, approves with a new agent over `reopen()`,
 * and checks the run completed once under the same id.
 */
async function approveAcrossInstances(open: () => HistoryStore, reopen: () => HistoryStore) {
  const { server, model } = await scripted([DELETE_CALL, { text: 'Deleted.' }]);
  const guarded = guardedTool();
  const first = new Agent({ name: 'a', model, history: open(), tools: [guarded.definition] });
  const paused = await finish(first.execute({ threadId: 't-across', messages: 'delete /tmp/a' }));
  expect(paused.result.status).toBe('paused');

  const stored = await reopen().loadRuns('t-across');
  expect(stored.map((row) => row.status)).toEqual(['paused']);
  expect(stored[0]?.state?.pending[0]?.interrupt.mode).toBe('approval');

  const second = new Agent({ name: 'b', model, history: reopen(), tools: [guarded.definition] });
  const resumed = await finish(
    second.execute({
      threadId: 't-across',
      resolutions: [{ callId: 'call_delete', action: 'approve' }],
    }),
  );

  expect(resumed.result.status).toBe('completed');
  expect(resumed.result.runId).toBe(paused.result.runId);
  expect(guarded.runs).toEqual(['/tmp/a']);
  expectOneNumbering([...paused.chunks, ...resumed.chunks]);
  expect(toolMessage(server.requests[1]?.messages, 'call_delete')).toBe('deleted /tmp/a');
  const rows = await reopen().loadRuns('t-across');
  expect(rows.map((row) => [row.runId, row.status])).toEqual([[paused.result.runId, 'completed']]);
  expectEveryCallAnsweredOnce(rows.flatMap((row) => row.items));
}

describe('Resuming a paused run', () => {
  it('from a new Agent over the same MemoryHistoryStore', async () => {
    const store = new MemoryHistoryStore();
    await approveAcrossInstances(
      () => store,
      () => store,
    );
  });

  it('from a new Agent and a new JsonlHistoryStore over the same directory', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'switchboard-resume-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const open = () => new JsonlHistoryStore({ directory });
    await approveAcrossInstances(open, open);
  });
});

describe('MRTR-style tools (context.interrupt)', () => {
  it('pause with a form interrupt; a new Agent resumes with valid content and the resume state', async () => {
    const { server, model } = await scripted([BOOK_CALL, { text: 'Booked.' }]);
    const form = formTool();
    const history = new MemoryHistoryStore();
    const first = new Agent({ name: 'a', model, history, tools: [form.definition] });

    const paused = await finish(first.execute({ threadId: 't-form', messages: 'book' }));

    const expected: Interrupt = {
      callId: 'call_book',
      toolName: 'book_table',
      arguments: { restaurant: 'Chez Ada' },
      mode: 'form',
      message: 'How many people?',
      requestedSchema: PEOPLE_SCHEMA,
    };
    expect(paused.result.status).toBe('paused');
    expect(paused.result.interrupts).toEqual([expected]);
    expect(ofType(paused.chunks, 'run.paused')[0]?.interrupts).toEqual([expected]);
    const [row] = await history.loadRuns('t-form');
    expect(row?.state?.pending).toEqual([
      expect.objectContaining({ interrupt: expected, resumeState: { token: 'abc' } }),
    ]);

    const second = new Agent({ name: 'b', model, history, tools: [form.definition] });
    const resumed = await finish(
      second.execute({
        threadId: 't-form',
        resolutions: [{ callId: 'call_book', action: 'approve', content: { people: 4 } }],
      }),
    );

    expect(resumed.result.status).toBe('completed');
    expect(form.resumes).toEqual([
      undefined,
      {
        resolution: { callId: 'call_book', action: 'approve', content: { people: 4 } },
        resumeState: { token: 'abc' },
      },
    ]);
    expect(toolMessage(server.requests[1]?.messages, 'call_book')).toBe(
      'approve {"people":4} {"token":"abc"}',
    );
    expectOneNumbering([...paused.chunks, ...resumed.chunks]);
  });

  it('invalid content leaves the run paused (invalid_resolution), runs nothing, and can be retried', async () => {
    const { server, model } = await scripted([BOOK_CALL, { text: 'Booked.' }]);
    const form = formTool();
    const history = new MemoryHistoryStore();
    const agent = () => new Agent({ name: 'a', model, history, tools: [form.definition] });
    const paused = await finish(agent().execute({ threadId: 't-invalid', messages: 'book' }));

    const invalid = await finish(
      agent().execute({
        threadId: 't-invalid',
        resolutions: [{ callId: 'call_book', action: 'approve', content: { people: 'many' } }],
      }),
    );

    expect(invalid.result.status).toBe('paused');
    expect(invalid.result.error?.code).toBe('invalid_resolution');
    expect(invalid.result.runId).toBe(paused.result.runId);
    expect(invalid.result.interrupts).toEqual(paused.result.interrupts);
    expect(invalid.chunks.at(-1)?.type).toBe('run.paused');
    expect(form.resumes).toEqual([undefined]);
    expect(server.requests).toHaveLength(1);
    const [row] = await history.loadRuns('t-invalid');
    expect(row?.status).toBe('paused');
    expect(row?.state?.pending.map((pending) => pending.call.callId)).toEqual(['call_book']);

    // Missing content on an accepted form is refused the same way.
    const empty = await agent()
      .execute({ threadId: 't-invalid', resolutions: [{ callId: 'call_book', action: 'approve' }] })
      .result();
    expect(empty.error?.code).toBe('invalid_resolution');

    const valid = await finish(
      agent().execute({
        threadId: 't-invalid',
        resolutions: [{ callId: 'call_book', action: 'approve', content: { people: 2 } }],
      }),
    );
    expect(valid.result.status).toBe('completed');
    expect(form.resumes).toHaveLength(2);
    expect(toolMessage(server.requests[1]?.messages, 'call_book')).toBe(
      'approve {"people":2} {"token":"abc"}',
    );
    // The refused attempts used sequence numbers too; the valid resume does not reuse them.
    const runChunks = [...paused.chunks, ...invalid.chunks];
    const emptyChunksCount = 2; // run.started + run.paused of the empty-content attempt
    const last = runChunks.at(-1)?.sequence ?? Number.NaN;
    expect(valid.chunks[0]?.sequence).toBe(last + emptyChunksCount + 1);
  });

  it('decline re-runs the tool with action reject, without content', async () => {
    const { server, model } = await scripted([BOOK_CALL, { text: 'Not booked.' }]);
    const form = formTool();
    const history = new MemoryHistoryStore();
    await new Agent({ name: 'a', model, history, tools: [form.definition] })
      .execute({ threadId: 't-decline', messages: 'book' })
      .result();

    const result = await new Agent({ name: 'b', model, history, tools: [form.definition] })
      .execute({ threadId: 't-decline', resolutions: [{ callId: 'call_book', action: 'reject' }] })
      .result();

    expect(result.status).toBe('completed');
    expect(form.resumes[1]).toEqual({
      resolution: { callId: 'call_book', action: 'reject' },
      resumeState: { token: 'abc' },
    });
    expect(toolMessage(server.requests[1]?.messages, 'call_book')).toBe(
      'reject null {"token":"abc"}',
    );
  });
});

describe('Live waits (context.requestInput)', () => {
  it('pause; resuming in the same Agent answers the still-running tool', async () => {
    const { server, model } = await scripted([SIGN_IN_CALL, { text: 'Signed in.' }]);
    const live = liveTool();
    const agent = new Agent({ name: 'a', model, tools: [live.definition] });

    const paused = await finish(agent.execute({ threadId: 't-live', messages: 'sign in' }));
    expect(paused.result.status).toBe('paused');
    expect(paused.result.interrupts).toEqual([
      {
        callId: 'call_sign',
        toolName: 'sign_in',
        arguments: {},
        mode: 'url',
        url: 'https://auth.example.com/start',
        message: 'Sign in, please.',
      },
    ]);

    const resumed = await finish(
      agent.execute({
        threadId: 't-live',
        resolutions: [{ callId: 'call_sign', action: 'approve' }],
      }),
    );

    expect(resumed.result.status).toBe('completed');
    expect(resumed.result.runId).toBe(paused.result.runId);
    expect(live.executions).toEqual([undefined]);
    expect(toolMessage(server.requests[1]?.messages, 'call_sign')).toBe('live: approve');
    // The resumed run reports the call's end like any other call.
    expect(ofType(resumed.chunks, 'tool.result')).toEqual([
      expect.objectContaining({ callId: 'call_sign', output: { text: 'live: approve' } }),
    ]);
    expectOneNumbering([...paused.chunks, ...resumed.chunks]);
  });

  it('resuming from a new Agent (the live call is gone) re-runs the tool with context.resume', async () => {
    const { server, model } = await scripted([SIGN_IN_CALL, { text: 'Signed in.' }]);
    const live = liveTool();
    const history = new MemoryHistoryStore();
    await new Agent({ name: 'a', model, history, tools: [live.definition] })
      .execute({ threadId: 't-live-new', messages: 'sign in' })
      .result();

    const result = await new Agent({ name: 'b', model, history, tools: [live.definition] })
      .execute({
        threadId: 't-live-new',
        resolutions: [{ callId: 'call_sign', action: 'approve' }],
      })
      .result();

    expect(result.status).toBe('completed');
    expect(live.executions).toEqual([
      undefined,
      { resolution: { callId: 'call_sign', action: 'approve' }, resumeState: { kind: 'pushed' } },
    ]);
    expect(toolMessage(server.requests[1]?.messages, 'call_sign')).toBe(
      're-run: approve {"kind":"pushed"}',
    );
  });
});

describe('Refused resumes', () => {
  it('an unknown call id fails with unknown_call_id; the run stays paused and resumable', async () => {
    const { model } = await scripted([DELETE_CALL, { text: 'Deleted.' }]);
    const guarded = guardedTool();
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'a', model, history, tools: [guarded.definition] });
    const paused = await finish(agent.execute({ threadId: 't-unknown', messages: 'delete' }));
    const before = await history.loadRuns('t-unknown');

    const wrong = await finish(
      agent.execute({
        threadId: 't-unknown',
        resolutions: [{ callId: 'call_nope', action: 'approve' }],
      }),
    );

    expect(wrong.result.status).toBe('failed');
    expect(wrong.result.error?.code).toBe('unknown_call_id');
    expect(wrong.result.error?.message).toMatch(/call_nope/);
    expect(wrong.chunks.map((chunk) => chunk.type)).toEqual(['run.started', 'run.failed']);
    expect(ofType(wrong.chunks, 'run.failed')[0]?.error.code).toBe('unknown_call_id');
    expect(guarded.runs).toEqual([]);
    const after = await history.loadRuns('t-unknown');
    expect(after.map((row) => [row.runId, row.status])).toEqual([[paused.result.runId, 'paused']]);
    expect(after[0]?.items).toEqual(before[0]?.items);
    expect(after[0]?.state?.pending).toEqual(before[0]?.state?.pending);

    const resumed = await finish(
      agent.execute({
        threadId: 't-unknown',
        resolutions: [{ callId: 'call_delete', action: 'approve' }],
      }),
    );
    expect(resumed.result.status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);
    expectOneNumbering([...paused.chunks, ...wrong.chunks, ...resumed.chunks]);
  });

  it('the same call answered twice in one resume is refused', async () => {
    const { model } = await scripted([DELETE_CALL, { text: 'Deleted.' }]);
    const guarded = guardedTool();
    const agent = new Agent({ name: 'a', model, tools: [guarded.definition] });
    await agent.execute({ threadId: 't-dup', messages: 'delete' }).result();

    const result = await agent
      .execute({
        threadId: 't-dup',
        resolutions: [
          { callId: 'call_delete', action: 'approve' },
          { callId: 'call_delete', action: 'approve' },
        ],
      })
      .result();

    expect(result.error?.code).toBe('unknown_call_id');
    expect(guarded.runs).toEqual([]);
    const again = await agent
      .execute({ threadId: 't-dup', resolutions: [{ callId: 'call_delete', action: 'approve' }] })
      .result();
    expect(again.status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);
  });

  it('resuming twice with the same approval runs the tool once; the second is not_paused', async () => {
    const { server, model } = await scripted([DELETE_CALL, { text: 'Deleted.' }]);
    const guarded = guardedTool();
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'a', model, history, tools: [guarded.definition] });
    await agent.execute({ threadId: 't-twice', messages: 'delete' }).result();
    const approve = {
      threadId: 't-twice',
      resolutions: [{ callId: 'call_delete', action: 'approve' as const }],
    };

    const first = await agent.execute(approve).result();
    const second = await new Agent({ name: 'b', model, history, tools: [guarded.definition] })
      .execute(approve)
      .result();

    expect(first.status).toBe('completed');
    expect(second.status).toBe('failed');
    expect(['not_paused', 'unknown_call_id']).toContain(second.error?.code);
    expect(guarded.runs).toEqual(['/tmp/a']);
    expect(server.requests).toHaveLength(2);
    const rows = await history.loadRuns('t-twice');
    expect(rows.map((row) => [row.runId, row.status])).toEqual([[first.runId, 'completed']]);
  });

  it('a thread without a paused run: not_paused, and nothing is written', async () => {
    const { server, model } = await scripted([{ text: 'Hi.' }]);
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'a', model, history });

    const handle = agent.execute({
      threadId: 't-none',
      resolutions: [{ callId: 'call_x', action: 'approve' }],
    });
    const { chunks, result } = await finish(handle);

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('not_paused');
    expect(chunks.map((chunk) => chunk.type)).toEqual(['run.started', 'run.failed']);
    expect(server.requests).toHaveLength(0);
    expect(await history.loadRuns('t-none')).toEqual([]);
    expect(await history.listThreads()).toEqual([]);

    // A finished thread: same answer, and its runs stay as they were.
    await agent.execute({ threadId: 't-done', messages: 'hello' }).result();
    const rowsBefore = await history.loadRuns('t-done');
    const late = await agent
      .execute({ threadId: 't-done', resolutions: [{ callId: 'call_x', action: 'approve' }] })
      .result();
    expect(late.error?.code).toBe('not_paused');
    expect(await history.loadRuns('t-done')).toEqual(rowsBefore);
  });

  it('a new message on a paused thread closes the pending calls and starts a new run', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_delete', name: 'delete_file', arguments: { path: '/tmp/a' } },
          { id: 'call_book', name: 'book_table', arguments: { restaurant: 'Chez Ada' } },
        ],
      },
      { text: 'Fine, never mind.' },
    ]);
    const guarded = guardedTool();
    const form = formTool();
    const history = new MemoryHistoryStore();
    const agent = new Agent({
      name: 'a',
      model,
      history,
      tools: [guarded.definition, form.definition],
    });
    const paused = await agent.execute({ threadId: 't-move-on', messages: 'do it' }).result();
    expect(paused.interrupts.map((interrupt) => interrupt.mode)).toEqual(['approval', 'form']);

    const next = await agent
      .execute({ threadId: 't-move-on', messages: 'forget it, something else' })
      .result();

    expect(next.status).toBe('completed');
    expect(next.runId).not.toBe(paused.runId);
    expect(guarded.runs).toEqual([]);
    expect(form.resumes).toEqual([undefined]);
    const messages = server.requests[1]?.messages;
    expect(toolMessage(messages, 'call_delete')).toMatch(/did not answer/);
    expect(toolMessage(messages, 'call_book')).toMatch(/did not answer/);
    expect(messages?.at(-1)).toEqual({ role: 'user', content: 'forget it, something else' });

    const rows = await history.loadRuns('t-move-on');
    expect(rows.map((row) => row.status)).toEqual(['cancelled', 'completed']);
    expect(rows[0]?.state?.pending ?? []).toEqual([]);
    expectEveryCallAnsweredOnce(await history.loadItems('t-move-on'));

    const late = await agent
      .execute({
        threadId: 't-move-on',
        resolutions: [{ callId: 'call_delete', action: 'approve' }],
      })
      .result();
    expect(late.error?.code).toBe('not_paused');
    expect(guarded.runs).toEqual([]);
  });
});

describe('Stopping and resuming', () => {
  it('stop() on a paused handle is a no-op: the run stays paused and resumable', async () => {
    const { model } = await scripted([DELETE_CALL, { text: 'Deleted.' }]);
    const guarded = guardedTool();
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'a', model, history, tools: [guarded.definition] });
    const handle = agent.execute({ threadId: 't-stop-paused', messages: 'delete' });
    const paused = await handle.result();

    handle.stop();
    handle.stop();

    expect(await handle.result()).toBe(paused);
    expect((await history.loadRuns('t-stop-paused'))[0]?.status).toBe('paused');
    const resumed = await agent
      .execute({
        threadId: 't-stop-paused',
        resolutions: [{ callId: 'call_delete', action: 'approve' }],
      })
      .result();
    expect(resumed.status).toBe('completed');
    expect(guarded.runs).toEqual(['/tmp/a']);
  });

  it('stop() during a resumed run cancels it like a normal run', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_slow', name: 'slow_delete', arguments: {} }] },
      { text: 'unused' },
    ]);
    const started = deferred();
    let aborted = false;
    const slow = tool({
      name: 'slow_delete',
      description: 'Deletes slowly.',
      input: z.object({}),
      needsApproval: true,
      execute: (_args, context) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve('finished without being aborted'), 3000);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted = true;
            reject(context.signal.reason);
          });
          started.resolve();
        }),
    });
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'a', model, history, tools: [slow] });
    const paused = await finish(agent.execute({ threadId: 't-stop-resumed', messages: 'go' }));

    const handle = agent.execute({
      threadId: 't-stop-resumed',
      resolutions: [{ callId: 'call_slow', action: 'approve' }],
    });
    await started.promise;
    handle.stop();
    const resumed = await finish(handle);

    expect(resumed.result.status).toBe('cancelled');
    expect(resumed.result.runId).toBe(paused.result.runId);
    expect(resumed.chunks.at(-1)?.type).toBe('run.cancelled');
    expect(aborted).toBe(true);
    expect(server.requests).toHaveLength(1);
    expectOneNumbering([...paused.chunks, ...resumed.chunks]);
    const rows = await history.loadRuns('t-stop-resumed');
    expect(rows.map((row) => row.status)).toEqual(['cancelled']);
    expect(rows[0]?.state?.pending ?? []).toEqual([]);
    expectEveryCallAnsweredOnce(rows[0]?.items ?? []);
    const output = rows[0]?.items.find((item) => item.type === 'function_call_output');
    expect(output).toMatchObject({ output: { isError: true, error: { code: 'cancelled' } } });

    // The thread is free again.
    const late = await agent
      .execute({
        threadId: 't-stop-resumed',
        resolutions: [{ callId: 'call_slow', action: 'approve' }],
      })
      .result();
    expect(late.error?.code).toBe('not_paused');
  });
});
