import { describe, expect, it } from 'vitest';
import type { Chunk } from '../agent/chunks.ts';
import { joinDeltas } from './join-deltas.ts';

const text = (delta: string, sequence: number): Chunk => ({
  type: 'text.delta',
  delta,
  runId: 'r',
  sequence,
});

describe('joinDeltas', () => {
  it('joins each run of deltas of one kind, keeps every other chunk in place, changes no chunk', () => {
    const chunks: Chunk[] = [
      { type: 'run.started', threadId: 't', runId: 'r', sequence: 0 },
      text('a', 1),
      text('b', 2),
      { type: 'reasoning.delta', delta: 'think', runId: 'r', sequence: 3 },
      text('c', 4),
      { type: 'text.done', text: 'abc', runId: 'r', sequence: 5 },
      text('d', 6),
    ];
    const before = structuredClone(chunks);
    expect(joinDeltas(chunks)).toEqual([
      chunks[0],
      text('ab', 2),
      chunks[3],
      text('c', 4),
      chunks[5],
      text('d', 6),
    ]);
    expect(chunks).toEqual(before);
  });
});
