import { describe, expect, it } from 'vitest';
import type { Chunk, ChunkPayload } from '../agent/chunks.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import { chatMessagesFromItems, type ChatMessage } from './chat-message.ts';
import { applyChunk, closeOpenCalls, markWaiting } from './chat-reducer.ts';

const ASSISTANT = 'a1';
let sequence = 0;

/** A literal chunk of run `r1`. */
function chunk(payload: ChunkPayload): Chunk {
  return { ...payload, runId: 'r1', sequence: sequence++ } as Chunk;
}

/** Folds `payloads` into `start`, as `AgentChat` does with a run's chunks. */
function fold(payloads: ChunkPayload[], start: readonly ChatMessage[] = []) {
  return payloads.reduce<readonly ChatMessage[]>(
    (messages, payload) => applyChunk(messages, chunk(payload), ASSISTANT),
    start,
  );
}

const USER: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] };

const CALL = {
  type: 'tool.call',
  callId: 'c1',
  toolName: 'add',
  arguments: { a: 2, b: 3 },
} as const;

const APPROVAL: Interrupt = {
  callId: 'c1',
  toolName: 'add',
  arguments: { a: 2, b: 3 },
  mode: 'approval',
};

describe('applyChunk', () => {
  it('grows one text part of the assistant message from text deltas', () => {
    const messages = fold(
      [
        { type: 'run.started', threadId: 't1' },
        { type: 'text.delta', delta: 'Hel' },
        { type: 'text.delta', delta: 'lo.' },
      ],
      [USER],
    );

    expect(messages).toEqual([
      USER,
      { id: ASSISTANT, role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] },
    ]);
    expect(messages[0]).toBe(USER);
  });

  it('keeps reasoning and text as separate parts, in order', () => {
    const messages = fold([
      { type: 'reasoning.delta', delta: 'Think' },
      { type: 'reasoning.delta', delta: 'ing.' },
      { type: 'text.delta', delta: 'Answer.' },
      { type: 'reasoning.delta', delta: 'More.' },
    ]);

    expect(messages[0]?.parts).toEqual([
      { type: 'reasoning', text: 'Thinking.' },
      { type: 'text', text: 'Answer.' },
      { type: 'reasoning', text: 'More.' },
    ]);
  });

  it('shows a tool call running, with progress, then done with its output', () => {
    const running = fold([
      { type: 'text.delta', delta: 'Let me add.' },
      { ...CALL, server: 'math' },
    ]);
    expect(running[0]?.parts[1]).toEqual({
      type: 'tool-call',
      callId: 'c1',
      toolName: 'add',
      server: 'math',
      arguments: { a: 2, b: 3 },
      state: 'running',
    });

    const progressed = fold(
      [
        { type: 'tool.progress', callId: 'c1', toolName: 'add', progress: 1, total: 2 },
        { type: 'tool.progress', callId: 'c1', toolName: 'add', progress: 2, message: 'almost' },
      ],
      running,
    );
    expect(progressed[0]?.parts[1]).toMatchObject({
      state: 'running',
      progress: { progress: 2, message: 'almost' },
    });
    expect(progressed[0]?.parts[1]).not.toHaveProperty('progress.total');

    const done = fold(
      [{ type: 'tool.result', callId: 'c1', toolName: 'add', output: { text: '5' } }],
      progressed,
    );
    expect(done[0]?.parts[1]).toEqual({
      type: 'tool-call',
      callId: 'c1',
      toolName: 'add',
      server: 'math',
      arguments: { a: 2, b: 3 },
      state: 'done',
      output: { text: '5' },
    });
  });

  it('settles a call with an error output as error', () => {
    const output = { text: 'boom', isError: true, error: { code: 'failed', message: 'boom' } };
    const messages = fold([CALL, { type: 'tool.result', callId: 'c1', toolName: 'add', output }]);

    expect(messages[0]?.parts[0]).toMatchObject({ state: 'error', output });
  });

  it('settles a resumed call in the earlier message that shows it', () => {
    const paused = fold([CALL, { type: 'run.paused', interrupts: [APPROVAL] }]);
    const resumed = paused.map((message) => ({ ...message, id: 'earlier' }));

    const messages = fold(
      [
        { type: 'tool.result', callId: 'c1', toolName: 'add', output: { text: '5' } },
        { type: 'text.delta', delta: 'It is 5.' },
      ],
      [USER, ...resumed],
    );

    expect(messages).toHaveLength(3);
    expect(messages[1]?.parts[0]).toMatchObject({ state: 'done', output: { text: '5' } });
    expect(messages[2]).toEqual({
      id: ASSISTANT,
      role: 'assistant',
      parts: [{ type: 'text', text: 'It is 5.' }],
    });
  });

  it('marks the held calls waiting when the run pauses', () => {
    const messages = fold([
      CALL,
      { ...CALL, callId: 'c2' },
      { type: 'run.paused', interrupts: [APPROVAL] },
    ]);

    expect(messages[0]?.parts.map((part) => part.type === 'tool-call' && part.state)).toEqual([
      'waiting',
      'running',
    ]);
  });

  it('closes the running and waiting calls as stopped when the run is cancelled', () => {
    const messages = fold([
      CALL,
      { ...CALL, callId: 'c2' },
      { ...CALL, callId: 'c3' },
      { type: 'tool.result', callId: 'c3', toolName: 'add', output: { text: '5' } },
      { type: 'run.paused', interrupts: [APPROVAL] },
      { type: 'run.cancelled' },
    ]);

    const stopped = {
      text: TOOL_ERROR_TEXT.stoppedBeforeFinish,
      isError: true,
      error: { code: 'cancelled' },
    };
    expect(messages[0]?.parts).toMatchObject([
      { callId: 'c1', state: 'error', output: stopped },
      { callId: 'c2', state: 'error', output: stopped },
      { callId: 'c3', state: 'done', output: { text: '5' } },
    ]);
  });

  it('returns the messages themselves for chunks that show nothing', () => {
    const messages = fold([{ type: 'text.delta', delta: 'Hi.' }], [USER]);

    for (const payload of [
      { type: 'run.started', threadId: 't1' },
      { type: 'text.done', text: 'Hi.' },
      { type: 'server.needs_auth', server: 'math', message: 'Sign in.' },
      { type: 'run.completed', usage: { inputTokens: 1, outputTokens: 1 }, output: [] },
      { type: 'tool.result', callId: 'unknown', toolName: 'add', output: { text: '5' } },
      { type: 'tool.progress', callId: 'unknown', toolName: 'add', progress: 1 },
      { type: 'run.paused', interrupts: [] },
      { type: 'run.cancelled' },
    ] satisfies ChunkPayload[]) {
      expect(applyChunk(messages, chunk(payload), ASSISTANT)).toBe(messages);
    }
  });
});

describe('markWaiting', () => {
  it('returns the messages themselves when no held call is shown', () => {
    const messages = fold([CALL]);
    expect(markWaiting(messages, [])).toBe(messages);
    expect(markWaiting(messages, [{ ...APPROVAL, callId: 'other' }])).toBe(messages);
  });
});

describe('closeOpenCalls', () => {
  it('closes only the waiting calls as unanswered, keeping the other messages', () => {
    const messages = fold(
      [CALL, { ...CALL, callId: 'c2' }, { type: 'run.paused', interrupts: [APPROVAL] }],
      [USER],
    );

    const closed = closeOpenCalls(messages, 'unanswered');

    expect(closed[0]).toBe(USER);
    expect(closed[1]?.parts).toMatchObject([
      {
        callId: 'c1',
        state: 'error',
        output: {
          text: TOOL_ERROR_TEXT.unanswered,
          isError: true,
          error: { code: 'unanswered' },
        },
      },
      { callId: 'c2', state: 'running' },
    ]);
  });

  it('gives a closed call the output the run stores for it, so live and reloaded cards agree', () => {
    const live = closeOpenCalls(fold([CALL]), 'stopped');
    const stored = chatMessagesFromItems([
      { type: 'function_call', callId: 'c1', name: 'add', arguments: '{"a":2,"b":3}' },
      {
        type: 'function_call_output',
        callId: 'c1',
        output: toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish),
      },
    ]);
    const livePart = live[0]?.parts[0];
    const storedPart = stored[0]?.parts[0];
    expect(livePart).toMatchObject({ state: 'error' });
    expect(livePart?.type === 'tool-call' && livePart.output).toEqual(
      storedPart?.type === 'tool-call' && storedPart.output,
    );
  });

  it('returns the messages themselves when no call is open', () => {
    const messages = fold([
      CALL,
      { type: 'tool.result', callId: 'c1', toolName: 'add', output: { text: '5' } },
    ]);
    expect(closeOpenCalls(messages, 'unanswered')).toBe(messages);
    expect(closeOpenCalls(messages, 'stopped')).toBe(messages);
  });
});
