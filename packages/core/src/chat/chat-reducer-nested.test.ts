import { describe, expect, it } from 'vitest';
import type { Chunk, ChunkPayload } from '../agent/chunks.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { ChatMessage } from './chat-message.ts';
import { applyChunk, closeOpenCalls } from './chat-reducer.ts';

let parentSequence = 0;
let childSequence = 0;

/** A chunk of the parent run `p1`. */
function parent(payload: ChunkPayload): Chunk {
  return { ...payload, runId: 'p1', sequence: parentSequence++ } as Chunk;
}

/** A chunk of the sub-agent's run `c1`, wrapped as the parent run streams it for call `outer`. */
function nested(payload: ChunkPayload): Chunk {
  const chunk = { ...payload, runId: 'c1', sequence: childSequence++ } as Chunk;
  return parent({ type: 'tool.nested', callId: 'outer', toolName: 'researcher', chunk });
}

function fold(chunks: Chunk[], start: readonly ChatMessage[] = []): readonly ChatMessage[] {
  return chunks.reduce((messages, chunk) => applyChunk(messages, chunk, 'a1'), start);
}

const OUTER_CALL = parent({
  type: 'tool.call',
  callId: 'outer',
  toolName: 'researcher',
  arguments: { input: 'Find it.' },
});

describe('applyChunk with tool.nested', () => {
  it('folds the nested run into the call part: its text and its own tool calls', () => {
    const messages = fold([
      OUTER_CALL,
      nested({ type: 'run.started', threadId: 'child-thread' }),
      nested({ type: 'tool.call', callId: 'inner', toolName: 'lookup', arguments: { q: 'x' } }),
      nested({ type: 'tool.result', callId: 'inner', toolName: 'lookup', output: { text: '42' } }),
      nested({ type: 'text.delta', delta: 'Found ' }),
      nested({ type: 'text.delta', delta: '42.' }),
    ]);

    const part = messages[0]?.parts[0];
    expect(part?.type === 'tool-call' && part.state).toBe('running');
    expect(part?.type === 'tool-call' && part.nested).toEqual([
      {
        id: 'c1',
        role: 'assistant',
        parts: [
          {
            type: 'tool-call',
            callId: 'inner',
            toolName: 'lookup',
            arguments: { q: 'x' },
            state: 'done',
            output: { text: '42' },
          },
          { type: 'text', text: 'Found 42.' },
        ],
      },
    ]);
  });

  it('marks a nested held call waiting, and a stop closes the nested calls left open', () => {
    const interrupt = {
      callId: 'inner',
      toolName: 'delete_file',
      arguments: {},
      mode: 'approval' as const,
    };
    const held = fold([
      OUTER_CALL,
      nested({ type: 'tool.call', callId: 'inner', toolName: 'delete_file', arguments: {} }),
      nested({ type: 'run.paused', interrupts: [interrupt] }),
    ]);
    const heldPart = held[0]?.parts[0];
    const innerPart = heldPart?.type === 'tool-call' ? heldPart.nested?.[0]?.parts[0] : undefined;
    expect(innerPart?.type === 'tool-call' && innerPart.state).toBe('waiting');

    const running = fold([
      OUTER_CALL,
      nested({ type: 'tool.call', callId: 'inner', toolName: 'slow', arguments: {} }),
    ]);
    const stopped = closeOpenCalls(running, 'stopped');
    const outer = stopped[0]?.parts[0];
    const inner = outer?.type === 'tool-call' ? outer.nested?.[0]?.parts[0] : undefined;
    expect(outer?.type === 'tool-call' && outer.state).toBe('error');
    expect(inner).toMatchObject({
      state: 'error',
      output: toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish),
    });
  });

  it('leaves the messages as they are for a nested chunk of an unknown call', () => {
    const messages = fold([OUTER_CALL]);
    const unknown = parent({
      type: 'tool.nested',
      callId: 'other',
      toolName: 'x',
      chunk: { type: 'text.delta', delta: 'x', runId: 'c9', sequence: 0 },
    });
    expect(applyChunk(messages, unknown, 'a1')).toBe(messages);
  });
});
