import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunRecord } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { TabStore } from '../history/tab-store-test-support.ts';
import { JsonlHistoryStore } from '../node/jsonl-history-store.ts';
import { tool } from '../tools/tool.ts';
import { mockModel, textTurn, toolCallTurn } from '../testing/mock-model.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  deferred,
  expectEveryCallAnsweredOnce,
  scripted,
  toolMessage,
} from './agent-test-support.ts';

const directories: string[] = [];
afterEach(async () => {
  await closeScriptedModelServers();
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function jsonlDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-recovery-'));
  directories.push(directory);
  return directory;
}

/** A side-effecting tool that records its runs and waits for `release` (a slow transfer). */
function slowTransfer() {
  const runs: number[] = [];
  const started = deferred();
  const release = deferred();
  const definition = tool({
    name: 'transfer',
    description: 'Transfers money.',
    input: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      runs.push(amount);
      started.resolve();
      await release.promise;
      return `transferred ${amount}`;
    },
  });
  return { definition, runs, started, release };
}

const TRANSFER = {
  toolCalls: [{ id: 'call_transfer', name: 'transfer', arguments: { amount: 5 } }],
};

describe('Recovery of runs nobody runs any more', () => {
  it('a tab closed during a tool call: the lease expires, the next client closes the call as outcome unknown and continues', async () => {
    const directory = await jsonlDirectory();
    const { server, model } = await scripted([TRANSFER, { text: 'Noted: unknown.' }]);
    const transfer = slowTransfer();
    const tab = new TabStore(new JsonlHistoryStore({ directory }));
    const first = new Agent({
      name: 'tab 1',
      model,
      history: tab,
      tools: [transfer.definition],
      leaseMs: 1_000,
    });
    void first.execute({ threadId: 't', messages: 'send 5' });
    await transfer.started.promise;
    tab.die();

    // A second tab, before the lease expired: the thread is busy.
    const secondStore = new JsonlHistoryStore({ directory });
    const second = new Agent({
      name: 'tab 2',
      model,
      history: secondStore,
      tools: [transfer.definition],
      leaseMs: 1_000,
    });
    const early = await second.execute({ threadId: 't', messages: 'status?' }).result();
    expect(early).toMatchObject({ status: 'failed', error: { code: 'run_in_progress' } });

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const later = await second.execute({ threadId: 't', messages: 'did it go through?' }).result();

    expect(later.status).toBe('completed');
    expect(transfer.runs).toEqual([5]); // never re-run
    expect(server.requests).toHaveLength(2);
    expect(toolMessage(server.requests[1]?.messages, 'call_transfer')).toMatch(
      /outcome of this tool call is unknown/,
    );
    const rows = await secondStore.loadRuns('t');
    expect(rows.map((row) => row.status)).toEqual(['failed', 'completed']);
    expect(rows[0]?.error?.code).toBe('outcome_unknown');
    expect(rows[0]?.lease).toBeUndefined();
    const items = rows.flatMap((row) => row.items);
    expectEveryCallAnsweredOnce(items);
    expect(items).toContainEqual(
      expect.objectContaining({
        callId: 'call_transfer',
        output: expect.objectContaining({
          error: expect.objectContaining({ code: 'outcome_unknown' }),
        }),
      }),
    );
    transfer.release.resolve();
  });

  it('a call that settled before the crash keeps its real output; only the one in flight is unknown', async () => {
    const directory = await jsonlDirectory();
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_quick', name: 'lookup', arguments: {} },
          { id: 'call_transfer', name: 'transfer', arguments: { amount: 5 } },
        ],
      },
      { text: 'One known, one unknown.' },
    ]);
    const transfer = slowTransfer();
    const lookup = tool({
      name: 'lookup',
      description: 'Looks the balance up.',
      input: z.object({}),
      execute: () => 'balance 100',
    });
    const tab = new TabStore(new JsonlHistoryStore({ directory }));
    const tools = [lookup, transfer.definition];
    const first = new Agent({ name: 'tab 1', model, history: tab, tools, leaseMs: 300 });
    void first.execute({ threadId: 't', messages: 'check and send' });
    const secondStore = new JsonlHistoryStore({ directory });
    await transfer.started.promise;
    await expect
      .poll(async () => (await secondStore.loadRuns('t'))[0]?.state?.settled?.length)
      .toBe(1);
    tab.die();
    await new Promise((resolve) => setTimeout(resolve, 400));

    const second = new Agent({ name: 'tab 2', model, history: secondStore, tools });
    const later = await second.execute({ threadId: 't', messages: 'what happened?' }).result();

    expect(later.status).toBe('completed');
    expect(toolMessage(server.requests[1]?.messages, 'call_quick')).toBe('balance 100');
    expect(toolMessage(server.requests[1]?.messages, 'call_transfer')).toMatch(/unknown/);
    const items = (await secondStore.loadRuns('t')).flatMap((row) => row.items);
    expectEveryCallAnsweredOnce(items);
    expect(transfer.runs).toEqual([5]);
    transfer.release.resolve();
  });

  it('renews the lease while the run is alive: another client cannot take over a slow call', async () => {
    const directory = await jsonlDirectory();
    const { model } = await scripted([TRANSFER, { text: 'Sent.' }]);
    const transfer = slowTransfer();
    const history = new JsonlHistoryStore({ directory });
    const first = new Agent({
      name: 'tab 1',
      model,
      history,
      tools: [transfer.definition],
      leaseMs: 300,
    });
    const running = first.execute({ threadId: 't', messages: 'send 5' });
    await transfer.started.promise;
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // over three leases long

    const other = new Agent({
      name: 'tab 2',
      model,
      history: new JsonlHistoryStore({ directory }),
      leaseMs: 300,
    });
    const refused = await other.execute({ threadId: 't', messages: 'hello?' }).result();
    expect(refused.error?.code).toBe('run_in_progress');

    transfer.release.resolve();
    const result = await running.result();
    expect(result.status).toBe('completed');
    expect(transfer.runs).toEqual([5]);
    const rows = await history.loadRuns('t');
    expect(rows.map((row) => row.status)).toEqual(['completed']);
    expectEveryCallAnsweredOnce(rows.flatMap((row) => row.items));
  });

  it('a failed history write fails the run with history_error and leaves the thread continuable', async () => {
    const { server, model } = await scripted([
      TRANSFER,
      { text: 'never asked' },
      { text: 'Back.' },
    ]);
    const transfer = slowTransfer();
    transfer.release.resolve();
    /**
     * Every write fails once a tool output is in the row, until `healed`: the stored row holds a
     * call without an output, status `running`.
     */
    class BrokenDisk extends MemoryHistoryStore {
      healed = false;
      #check(run: RunRecord): void {
        const settled = run.items.some((item) => item.type === 'function_call_output');
        if (settled && !this.healed) throw new Error('disk full');
      }
      override async saveRun(run: RunRecord): Promise<void> {
        this.#check(run);
        await super.saveRun(run);
      }
      override async compareAndSetRun(run: RunRecord, expectedVersion: number) {
        this.#check(run);
        return await super.compareAndSetRun(run, expectedVersion);
      }
    }
    const history = new BrokenDisk();
    const agent = new Agent({ name: 'a', model, history, tools: [transfer.definition] });

    const failed = await agent.execute({ threadId: 't', messages: 'send 5' }).result();
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'history_error' } });
    expect(transfer.runs).toEqual([5]);

    history.healed = true;
    const next = await agent.execute({ threadId: 't', messages: 'again?' }).result();
    expect(next.status).toBe('completed');
    expect(transfer.runs).toEqual([5]);
    expect(server.requests).toHaveLength(2);
    expect(toolMessage(server.requests[1]?.messages, 'call_transfer')).toMatch(/unknown/);
    const items = await history.loadItems('t');
    expectEveryCallAnsweredOnce(items);
    expect((await history.loadRuns('t')).map((row) => row.status)).toEqual(['failed', 'completed']);
  });
});

describe('Agent.loadThread', () => {
  it('returns a live run as it is and recovers it once its lease expired, without running anything', async () => {
    const { server, model } = await scripted([TRANSFER, { text: 'Sent.' }]);
    const transfer = slowTransfer();
    const inner = new MemoryHistoryStore();
    const tab = new TabStore(inner);
    const tools = [transfer.definition];
    const first = new Agent({ name: 'tab 1', model, history: tab, tools, leaseMs: 300 });
    void first.execute({ threadId: 't', messages: 'send 5' });
    await transfer.started.promise;

    // The agent running the thread reads its own live row as it is.
    expect((await first.loadThread('t')).map((row) => row.status)).toEqual(['running']);
    const second = new Agent({ name: 'tab 2', model, history: inner, tools, leaseMs: 300 });
    expect((await second.loadThread('t')).map((row) => row.status)).toEqual(['running']);

    tab.die();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const rows = await second.loadThread('t');

    expect(rows.map((row) => row.status)).toEqual(['failed']);
    expect(rows[0]?.error?.code).toBe('outcome_unknown');
    expectEveryCallAnsweredOnce(rows.flatMap((row) => row.items));
    expect(await inner.loadRuns('t')).toEqual(rows);
    expect(transfer.runs).toEqual([5]);
    expect(server.requests).toHaveLength(1);
    // An unknown thread is empty.
    expect(await second.loadThread('other')).toEqual([]);
    transfer.release.resolve();
  });

  it('loadThread never recovers a run the same agent started while the rows were loading', async () => {
    // The UI opens the thread and the user sends at once: the load reads the new run's
    // `running` row (this agent's own lease) after the run started; it is live, not stale.
    class SlowFirstLoad extends MemoryHistoryStore {
      #loads = 0;
      override async loadRuns(
        threadId: string,
        options?: { signal?: AbortSignal },
      ): Promise<RunRecord[]> {
        this.#loads += 1;
        if (this.#loads === 1) await new Promise((resolve) => setTimeout(resolve, 50));
        return await super.loadRuns(threadId, options);
      }
    }
    const history = new SlowFirstLoad();
    const ran: string[] = [];
    const pay = tool({
      name: 'pay',
      description: 'Pays',
      input: z.object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        ran.push('paid');
        return 'paid';
      },
    });
    const agent = new Agent({
      name: 'ui',
      history,
      model: mockModel([
        toolCallTurn([{ name: 'pay', arguments: {}, callId: 'c_pay' }]),
        textTurn('Paid.'),
      ]),
      tools: [pay],
    });

    const loading = agent.loadThread('t');
    const run = agent.execute({ threadId: 't', messages: 'pay' });
    await loading;
    const result = await run.result();

    expect(result.status).toBe('completed');
    expect(ran).toEqual(['paid']);
    const [stored] = await history.loadRuns('t');
    expect(stored?.status).toBe('completed');
  });
});
