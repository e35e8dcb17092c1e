/**
 * Claims across clients (issue 13, bullet 2), as a Vitest suite run over each history store:
 * two clients (two `Agent` instances over two store instances on the same storage, as two tabs
 * or two processes) resume one paused run at once. Test-only: not exported from the package.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HistoryStore } from '../history/history-store.ts';
import type { ScriptedReply } from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  expectEveryCallAnsweredOnce,
  finish,
  scripted,
} from './agent-test-support.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';

/** Two store instances over the same fresh storage, and how to release it. */
export interface TwoClients {
  first: HistoryStore;
  second: HistoryStore;
  dispose?: () => Promise<void> | void;
}

export const DELETE_CALL: ScriptedReply = {
  toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { path: '/tmp/a' } }],
};

/** A tool that needs approval, records its runs and takes a moment (a real side effect would). */
export function guardedTool() {
  const runs: string[] = [];
  const definition = tool({
    name: 'delete_file',
    description: 'Deletes a file.',
    input: z.object({ path: z.string() }),
    annotations: { destructiveHint: true },
    needsApproval: true,
    execute: async ({ path }) => {
      runs.push(path);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return `deleted ${path}`;
    },
  });
  return { definition, runs };
}

/** See the module comment. `makeClients` runs before every test. */
export function describeRunClaims(
  name: string,
  makeClients: () => TwoClients | Promise<TwoClients>,
): void {
  describe(`${name}: two clients resuming one paused run`, () => {
    const disposals: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      await closeScriptedModelServers();
      for (const dispose of disposals.splice(0)) await dispose();
    });

    async function pausedThread(replies: ScriptedReply[]) {
      const clients = await makeClients();
      if (clients.dispose !== undefined) disposals.push(clients.dispose);
      const { server, model } = await scripted(replies);
      const guarded = guardedTool();
      const agentOn = (history: HistoryStore) =>
        new Agent({ name: 'claims', model, history, tools: [guarded.definition] });
      const paused = await agentOn(clients.first)
        .execute({ threadId: 't', messages: 'delete it' })
        .result();
      expect(paused.status).toBe('paused');
      return { clients, server, guarded, agentOn };
    }

    it('two approvals at once: exactly one proceeds, the other ends run_claimed having run nothing', async () => {
      const { clients, server, guarded, agentOn } = await pausedThread([
        DELETE_CALL,
        { text: 'Deleted.' },
        { text: 'Deleted (second answer: must not be asked).' },
      ]);
      const resolutions: Resolution[] = [{ callId: 'call_delete', action: 'approve' }];
      const [a, b] = await Promise.all([
        finish(agentOn(clients.first).execute({ threadId: 't', resolutions })),
        finish(agentOn(clients.second).execute({ threadId: 't', resolutions })),
      ]);

      const results = [a.result, b.result];
      expect(results.map((result) => result.status).sort()).toEqual(['completed', 'failed']);
      const loser = a.result.status === 'failed' ? a : b;
      // `run_claimed` when both read the pause and the loser's claim failed; `not_paused` when
      // the winner had already finished before the loser read the thread (a slow store under
      // load). `AgentChat` shows both as answered elsewhere; either way nothing ran twice.
      expect(['run_claimed', 'not_paused']).toContain(loser.result.error?.code);
      expect(loser.chunks.at(-1)?.type).toBe('run.failed');
      expect(loser.chunks.filter((chunk) => chunk.type.startsWith('tool.'))).toEqual([]);
      expect(guarded.runs).toEqual(['/tmp/a']);
      expect(server.requests).toHaveLength(2);

      for (const store of [clients.first, clients.second]) {
        const rows = await store.loadRuns('t');
        expect(rows.map((row) => row.status)).toEqual(['completed']);
        const items = rows.flatMap((row) => row.items);
        expectEveryCallAnsweredOnce(items);
        expect(items).toContainEqual({
          type: 'function_call_output',
          callId: 'call_delete',
          output: { text: 'deleted /tmp/a' },
        });
      }
    });

    it('approve and reject at once: one wins, and the history says what ran', async () => {
      const { clients, guarded, agentOn } = await pausedThread([
        DELETE_CALL,
        { text: 'Done.' },
        { text: 'Done (second answer: must not be asked).' },
      ]);
      const [approved, rejected] = await Promise.all([
        agentOn(clients.first)
          .execute({ threadId: 't', resolutions: [{ callId: 'call_delete', action: 'approve' }] })
          .result(),
        agentOn(clients.second)
          .execute({ threadId: 't', resolutions: [{ callId: 'call_delete', action: 'reject' }] })
          .result(),
      ]);

      const winner = approved.status === 'completed' ? approved : rejected;
      const loser = winner === approved ? rejected : approved;
      expect(winner.status).toBe('completed');
      expect(loser.status).toBe('failed');
      // As above: `not_paused` when the winner had finished before the loser read the thread.
      expect(['run_claimed', 'not_paused']).toContain(loser.error?.code);
      const items = (await clients.second.loadRuns('t')).flatMap((row) => row.items);
      expectEveryCallAnsweredOnce(items);
      const output = items.find(
        (item) => item.type === 'function_call_output' && item.callId === 'call_delete',
      );
      if (winner === approved) {
        expect(guarded.runs).toEqual(['/tmp/a']);
        expect(output).toMatchObject({ output: { text: 'deleted /tmp/a' } });
      } else {
        expect(guarded.runs).toEqual([]);
        expect(output).toMatchObject({ output: { isError: true, error: { code: 'rejected' } } });
      }
    });

    it('an edit and an approval at once: one wins, the tool runs at most once, every call one output', async () => {
      const { clients, guarded, agentOn } = await pausedThread([
        DELETE_CALL,
        { text: 'Done.' },
        { text: 'Done (second answer: must not be asked).' },
      ]);
      const [approved, edited] = await Promise.all([
        agentOn(clients.first)
          .execute({ threadId: 't', resolutions: [{ callId: 'call_delete', action: 'approve' }] })
          .result(),
        // A new branch from before the paused run's message (docs/conversations.md, "Branches").
        agentOn(clients.second)
          .execute({ threadId: 't', messages: 'keep it', parentRunId: null })
          .result(),
      ]);

      expect([approved.status, edited.status].sort()).toEqual(['completed', 'failed']);
      const loser = approved.status === 'failed' ? approved : edited;
      expect(['run_claimed', 'run_in_progress', 'not_paused']).toContain(loser.error?.code);
      const rows = await clients.second.loadRuns('t');
      for (const row of rows) expectEveryCallAnsweredOnce(row.items);
      if (approved.status === 'completed') {
        expect(guarded.runs).toEqual(['/tmp/a']);
        expect(rows.map((row) => row.status)).toEqual(['completed']);
      } else {
        // The pause was left for the new branch: its call is closed, never run.
        expect(guarded.runs).toEqual([]);
        expect(rows.map((row) => [row.status, row.parentRunId])).toEqual([
          ['cancelled', null],
          ['completed', null],
        ]);
        expect(rows[0]?.items).toContainEqual(
          expect.objectContaining({
            callId: 'call_delete',
            output: expect.objectContaining({
              error: expect.objectContaining({ code: 'unanswered' }),
            }),
          }),
        );
      }
    });
  });
}
