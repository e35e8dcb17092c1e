import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompareAndSetResult, RunRecord } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { Item } from '../vocabulary/items.ts';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  expectEveryCallAnsweredOnce,
  finish,
  ofType,
  scripted,
} from './agent-test-support.ts';

afterEach(async () => {
  await closeScriptedModelServers();
});

/** A memory store that records every write the agent makes. */
class RecordingStore extends MemoryHistoryStore {
  readonly writes: { row: RunRecord; expectedVersion: number; written: boolean }[] = [];
  plainSaves = 0;
  override async saveRun(run: RunRecord): Promise<void> {
    this.plainSaves += 1;
    await super.saveRun(run);
  }
  override async compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
  ): Promise<CompareAndSetResult> {
    const result = await super.compareAndSetRun(run, expectedVersion);
    this.writes.push({ row: structuredClone(run), expectedVersion, written: result.written });
    return result;
  }
}

const addTool = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

function startsWith(items: readonly Item[], prefix: readonly Item[]): boolean {
  return prefix.every((item, index) => JSON.stringify(items[index]) === JSON.stringify(item));
}

describe('RunJournal: one owner of the run record', () => {
  it('stores every state change as one compare-and-set of the whole row, append-only', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 2 } }] },
      { toolCalls: [{ id: 'c2', name: 'add', arguments: { a: 3, b: 4 } }] },
      { text: 'Done.' },
    ]);
    const history = new RecordingStore();
    const agent = new Agent({ name: 'journal', model, history, tools: [addTool] });
    const { chunks, result } = await finish(agent.execute({ threadId: 't', messages: 'add' }));

    expect(result.status).toBe('completed');
    expect(history.plainSaves).toBe(0);
    const writes = history.writes;
    // claimed, model turn, calls settled, model turn, calls settled, completed
    expect(writes.map((write) => write.row.status)).toEqual([
      'running',
      'running',
      'running',
      'running',
      'running',
      'completed',
    ]);
    writes.forEach((write, index) => {
      expect(write.written).toBe(true);
      expect(write.expectedVersion).toBe(index);
      if (index > 0)
        expect(startsWith(write.row.items, writes[index - 1]?.row.items ?? [])).toBe(true);
      expect(write.row.lease !== undefined).toBe(write.row.status === 'running');
    });
    const [stored] = await history.loadRuns('t');
    expect(stored).toMatchObject({ status: 'completed', version: writes.length });
    expect(stored?.lease).toBeUndefined();
    expect(stored?.lastSequence).toBe(chunks.at(-1)?.sequence);
    expect(stored?.items).toEqual(result.output);
    expectEveryCallAnsweredOnce(stored?.items ?? []);
    // tool.result exactly once per call.
    expect(ofType(chunks, 'tool.result').map((chunk) => chunk.callId)).toEqual(['c1', 'c2']);
  });

  it('a live call answered after a resume reports its progress and result to the resumed run', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_sign', name: 'sign_in', arguments: {} }] },
      { text: 'Signed in.' },
    ]);
    const signIn = tool({
      name: 'sign_in',
      description: 'Signs in.',
      input: z.object({}),
      execute: async (_args, context) => {
        const answer = await context.requestInput(
          { mode: 'url', url: 'https://auth.example.com/start', message: 'Sign in.' },
          { kind: 'pushed' },
        );
        context.reportProgress({ progress: 1, total: 2, message: 'exchanging the code' });
        await new Promise((resolve) => setTimeout(resolve, 20));
        context.reportProgress({ progress: 2, total: 2 });
        return `live: ${answer.action}`;
      },
    });
    const agent = new Agent({ name: 'journal', model, tools: [signIn] });
    const paused = await agent.execute({ threadId: 't', messages: 'sign in' }).result();
    expect(paused.status).toBe('paused');

    const { chunks, result } = await finish(
      agent.execute({ threadId: 't', resolutions: [{ callId: 'call_sign', action: 'approve' }] }),
    );
    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'tool.progress').map((chunk) => chunk.progress)).toEqual([1, 2]);
    expect(ofType(chunks, 'tool.result')).toHaveLength(1);
    expect(new Set(chunks.map((chunk) => chunk.runId))).toEqual(new Set([paused.runId]));
    chunks.forEach((chunk, index) => expect(chunk.sequence).toBe(chunks[0]!.sequence + index));
  });
});
