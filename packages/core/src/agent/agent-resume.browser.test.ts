// Installs fake-indexeddb's IDBRequest, IDBKeyRange, … as globals, which `idb` needs; the test
// still opens its stores on its own IDBFactory.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IndexedDbHistoryStore } from '../history/indexeddb-history-store.ts';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import type { ToolResume } from '../vocabulary/interrupts.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  expectEveryCallAnsweredOnce,
  finish,
  scripted,
} from './agent-test-support.ts';

const stores: IndexedDbHistoryStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  await closeScriptedModelServers();
});

function toolContent(server: ScriptedModelServer, index: number, callId: string): unknown {
  return server.requests[index]?.messages.find(
    (message) => message.role === 'tool' && message.tool_call_id === callId,
  )?.content;
}

/** A new store instance over `factory`, as after a page reload. */
function openStore(factory: IDBFactory): IndexedDbHistoryStore {
  const store = new IndexedDbHistoryStore({ indexedDB: factory });
  stores.push(store);
  return store;
}

describe('Resuming from IndexedDB (a reload: new Agent, new store, same database)', () => {
  it('an approval', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { path: '/a' } }] },
      { text: 'Deleted.' },
    ]);
    const runs: string[] = [];
    const remove = tool({
      name: 'delete_file',
      description: 'Deletes a file.',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => {
        runs.push(path);
        return `deleted ${path}`;
      },
    });
    const factory = new IDBFactory();
    const before = new Agent({ name: 'a', model, history: openStore(factory), tools: [remove] });
    const paused = await finish(before.execute({ threadId: 't-idb', messages: 'delete /a' }));
    expect(paused.result.status).toBe('paused');

    const reloaded = openStore(factory);
    const stored = await reloaded.loadRuns('t-idb');
    expect(stored.map((row) => row.status)).toEqual(['paused']);
    expect(stored[0]?.state?.pending[0]?.interrupt).toMatchObject({
      callId: 'call_delete',
      mode: 'approval',
    });

    const after = new Agent({ name: 'b', model, history: reloaded, tools: [remove] });
    const resumed = await finish(
      after.execute({
        threadId: 't-idb',
        resolutions: [{ callId: 'call_delete', action: 'approve' }],
      }),
    );

    expect(resumed.result.status).toBe('completed');
    expect(resumed.result.runId).toBe(paused.result.runId);
    expect(runs).toEqual(['/a']);
    expect(toolContent(server, 1, 'call_delete')).toBe('deleted /a');
    const all = [...paused.chunks, ...resumed.chunks];
    all.forEach((chunk, index) => expect(chunk.sequence).toBe(index));
    const rows = await openStore(factory).loadRuns('t-idb');
    expect(rows.map((row) => [row.runId, row.status])).toEqual([
      [paused.result.runId, 'completed'],
    ]);
    expectEveryCallAnsweredOnce(rows[0]?.items ?? []);
  });

  it('an MRTR-style form interrupt with its resume state', async () => {
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'call_book', name: 'book', arguments: {} }] },
      { text: 'Booked.' },
    ]);
    const resumes: (ToolResume | undefined)[] = [];
    const book = tool({
      name: 'book',
      description: 'Books a table.',
      input: z.object({}),
      execute: (_args, context) => {
        resumes.push(context.resume);
        if (context.resume === undefined) {
          return context.interrupt(
            {
              mode: 'form',
              message: 'How many?',
              requestedSchema: {
                type: 'object',
                properties: { people: { type: 'integer' } },
                required: ['people'],
              },
            },
            { token: 'abc', nested: { step: 2 } },
          );
        }
        return `people=${String(context.resume.resolution.content?.people)}`;
      },
    });
    const factory = new IDBFactory();
    await new Agent({ name: 'a', model, history: openStore(factory), tools: [book] })
      .execute({ threadId: 't-idb-form', messages: 'book' })
      .result();

    const result = await new Agent({ name: 'b', model, history: openStore(factory), tools: [book] })
      .execute({
        threadId: 't-idb-form',
        resolutions: [{ callId: 'call_book', action: 'approve', content: { people: 3 } }],
      })
      .result();

    expect(result.status).toBe('completed');
    expect(resumes[1]?.resumeState).toEqual({ token: 'abc', nested: { step: 2 } });
    expect(toolContent(server, 1, 'call_book')).toBe('people=3');
  });
});
