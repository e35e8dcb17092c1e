/**
 * Scenarios of several clients on one thread through {@link AgentChat} (two tabs approving the
 * same call; a tab reloaded in the middle of a tool call), run against each history store by
 * the test files that import it. Test-only: not exported from the package.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent/agent.ts';
import type { HistoryStore } from '../history/history-store.ts';
import { TabStore } from '../history/tab-store-test-support.ts';
import type { ScriptedReply } from '@switchboard/fixtures';
import { closeScriptedModelServers, scripted } from '../agent/agent-test-support.ts';
import { tool } from '../tools/tool.ts';
import { AgentChat, type ChatSnapshot } from './agent-chat.ts';
import type { ChatMessage } from './chat-message.ts';

/** Two views of one storage, as two tabs have (one instance twice for a memory store). */
export interface TwoClients {
  first: HistoryStore;
  second: HistoryStore;
  dispose?: () => void;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Messages without their ids (live ids are random, loaded ids are positional). */
function withoutIds(messages: readonly ChatMessage[]) {
  return messages.map(({ role, parts }) => ({ role, parts }));
}

/** Resolves once `chat`'s snapshot satisfies `test` (checked on every notification). */
function until(chat: AgentChat, test: (snapshot: ChatSnapshot) => boolean): Promise<ChatSnapshot> {
  return new Promise((resolve) => {
    const check = () => {
      if (!test(chat.getSnapshot())) return false;
      unsubscribe();
      resolve(chat.getSnapshot());
      return true;
    };
    const unsubscribe = chat.subscribe(() => void check());
    check();
  });
}

/** A destructive tool that needs approval, counts its runs and waits for `release`. */
function slowDelete() {
  const runs: string[] = [];
  const started = deferred();
  const release = deferred();
  const definition = tool({
    name: 'delete_file',
    description: 'Deletes a file.',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      runs.push(path);
      started.resolve();
      await release.promise;
      return `Deleted ${path}.`;
    },
  });
  return { definition, runs, started, release };
}

const DELETE: ScriptedReply = {
  toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { path: 'notes.txt' } }],
};

/** The chat scenarios of several clients, over the stores `open` returns for each test. */
export function describeChatClients(name: string, open: () => TwoClients): void {
  describe(`AgentChat with several clients: ${name}`, () => {
    const cleanups: (() => void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) cleanup();
      await closeScriptedModelServers();
    });

    function stores(): TwoClients {
      const clients = open();
      if (clients.dispose !== undefined) cleanups.push(clients.dispose);
      return clients;
    }

    it('two tabs approve the same call at once: it runs once, the other tab follows and both show the same outcome', async () => {
      const { server, model } = await scripted([DELETE, { text: 'Deleted notes.txt.' }]);
      const remove = slowDelete();
      const { first, second } = stores();
      const tools = [remove.definition];
      const chatA = new AgentChat(new Agent({ name: 'A', model, history: first, tools }), {
        threadId: 't',
      });
      const chatB = new AgentChat(new Agent({ name: 'B', model, history: second, tools }), {
        threadId: 't',
      });
      await chatA.send('delete notes.txt');
      await chatB.load();
      expect(chatA.getSnapshot().status).toBe('paused');
      expect(chatB.getSnapshot()).toMatchObject({
        status: 'paused',
        interrupts: [{ callId: 'call_delete' }],
      });
      const statusesB: string[] = [];
      chatB.subscribe(() => statusesB.push(chatB.getSnapshot().status));

      const answers = Promise.all([chatA.approve('call_delete'), chatB.approve('call_delete')]);
      await remove.started.promise;
      // One of them claimed the run; the other reloaded and follows it while the tool runs.
      const [loser, winner] = await Promise.race([
        until(chatA, (snapshot) => snapshot.status === 'running-elsewhere').then(() => [
          chatA,
          chatB,
        ]),
        until(chatB, (snapshot) => snapshot.status === 'running-elsewhere').then(() => [
          chatB,
          chatA,
        ]),
      ]);
      expect(winner?.getSnapshot().status).toBe('streaming');
      expect(loser?.getSnapshot().error).toBeUndefined();
      const runningPart = loser?.getSnapshot().messages.at(-1)?.parts[0];
      expect(runningPart).toMatchObject({ callId: 'call_delete', state: 'running' });
      remove.release.resolve();
      const results = await answers;

      expect(remove.runs).toEqual(['notes.txt']);
      expect(server.requests).toHaveLength(2);
      expect(results.map((result) => result?.status).sort()).toEqual(['completed', 'failed']);
      expect(results.find((result) => result?.status === 'failed')?.error?.code).toMatch(
        /^(run_claimed|not_paused)$/,
      );
      const followed = await until(chatB === loser ? chatB : chatA, (s) => s.status === 'idle');
      expect(followed.error).toBeUndefined();
      expect(winner?.getSnapshot().status).toBe('idle');
      expect(withoutIds(followed.messages)).toEqual(
        withoutIds(winner?.getSnapshot().messages ?? []),
      );
      expect(withoutIds(followed.messages).at(-1)).toEqual({
        role: 'assistant',
        parts: [
          {
            type: 'tool-call',
            callId: 'call_delete',
            toolName: 'delete_file',
            arguments: { path: 'notes.txt' },
            state: 'done',
            output: { text: 'Deleted notes.txt.' },
          },
          { type: 'text', text: 'Deleted notes.txt.' },
        ],
      });
      expect(statusesB).not.toContain('error');
      expect(chatA.getSnapshot().status).not.toBe('error');
    });

    it('a tab reloaded during a slow tool call: the next tab recovers the call as outcome unknown and the thread continues', async () => {
      const { server, model } = await scripted([
        { toolCalls: [{ id: 'call_count', name: 'count', arguments: {} }] },
        { text: 'The count may or may not have finished.' },
      ]);
      const runs: number[] = [];
      const started = deferred();
      const count = tool({
        name: 'count',
        description: 'Counts slowly.',
        input: z.object({}),
        execute: () => {
          runs.push(1);
          started.resolve();
          return new Promise<string>(() => undefined);
        },
      });
      const { first, second } = stores();
      const tab = new TabStore(first);
      const leaseMs = 300;
      const before = new AgentChat(
        new Agent({ name: 'before', model, history: tab, tools: [count], leaseMs }),
        { threadId: 't' },
      );
      void before.send('count to 5 slowly');
      await started.promise;
      tab.die(); // the page reloads: its run writes nothing more

      const after = new AgentChat(
        new Agent({ name: 'after', model, history: second, tools: [count], leaseMs }),
        { threadId: 't' },
      );
      const statuses: string[] = [];
      after.subscribe(() => statuses.push(after.getSnapshot().status));
      await after.load();
      // Loaded before the old page's lease expired: the run looks alive, so the chat follows it.
      expect(after.getSnapshot().status).toBe('running-elsewhere');
      const recovered = await until(after, (snapshot) => snapshot.status === 'idle');

      expect(recovered.error).toBeUndefined();
      const part = recovered.messages.at(-1)?.parts[0];
      expect(part).toMatchObject({ type: 'tool-call', callId: 'call_count', state: 'error' });
      expect(part?.type === 'tool-call' && part.output?.error?.code).toBe('outcome_unknown');
      expect(part?.type === 'tool-call' && part.output?.text).toMatch(/outcome .* is unknown/);
      expect(statuses).toEqual(['loading', 'running-elsewhere', 'idle']);

      const next = await after.send('did it finish?');
      expect(next.status).toBe('completed');
      expect(runs).toEqual([1]); // never run again
      expect(withoutIds(after.getSnapshot().messages).at(-1)).toEqual({
        role: 'assistant',
        parts: [{ type: 'text', text: 'The count may or may not have finished.' }],
      });
      const toolMessage = server.requests[1]?.messages.find(
        (message) => message.role === 'tool' && message.tool_call_id === 'call_count',
      );
      expect(JSON.stringify(toolMessage?.content)).toMatch(/unknown/);
    });

    it('a thread whose lease already expired is recovered by load() itself', async () => {
      const { model } = await scripted([
        { toolCalls: [{ id: 'call_count', name: 'count', arguments: {} }] },
      ]);
      const started = deferred();
      const count = tool({
        name: 'count',
        description: 'Counts slowly.',
        input: z.object({}),
        execute: () => {
          started.resolve();
          return new Promise<string>(() => undefined);
        },
      });
      const { first, second } = stores();
      const tab = new TabStore(first);
      const before = new AgentChat(
        new Agent({ name: 'before', model, history: tab, tools: [count], leaseMs: 100 }),
        { threadId: 't' },
      );
      void before.send('count');
      await started.promise;
      tab.die();
      await new Promise((resolve) => setTimeout(resolve, 150));

      const after = new AgentChat(new Agent({ name: 'after', model, history: second }), {
        threadId: 't',
      });
      await after.load();

      expect(after.getSnapshot()).toMatchObject({ status: 'idle', interrupts: [] });
      expect(after.getSnapshot().messages.at(-1)?.parts[0]).toMatchObject({
        callId: 'call_count',
        state: 'error',
        output: { error: { code: 'outcome_unknown' } },
      });
      expect((await second.loadRuns('t')).map((row) => row.status)).toEqual(['failed']);
    });
  });
}
