import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import {
  startDemoServer,
  startSlowElicitationServer,
  type DemoServer,
  type SlowElicitationServer,
} from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import { mockModel, textTurn, toolCallTurn } from '../testing/mock-model.ts';
import { Agent } from './agent.ts';
import {
  closeScriptedModelServers,
  deferred,
  expectEveryCallAnsweredOnce,
  finish,
  scripted,
} from './agent-test-support.ts';

let demo: DemoServer;
const servers: (McpServer | SlowElicitationServer)[] = [];
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 2 });
});
afterAll(async () => {
  await demo.close();
});
afterEach(async () => {
  await closeScriptedModelServers();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A 2025-style tool: asks for input while its call stays open (a pushed elicitation), then does
 * slow work that honours its signal.
 */
function liveSlowTool() {
  const state = { answered: deferred(), aborted: false, finished: false };
  const definition = tool({
    name: 'transfer',
    description: 'Transfers money after a confirmation.',
    input: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.requestInput(
        { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } },
        { kind: 'pushed' },
      );
      state.answered.resolve();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          state.finished = true;
          resolve();
        }, 3_000);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          state.aborted = true;
          resolve();
        });
      });
      return `transfer ${answer.action}`;
    },
  });
  return { definition, state };
}

describe('stop() owns what it stops', () => {
  it('stopping a resumed run aborts the live call it continued (answered in the same Agent)', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_transfer', name: 'transfer', arguments: {} }] },
      { text: 'never asked' },
    ]);
    const live = liveSlowTool();
    const agent = new Agent({ name: 'stop', model, tools: [live.definition] });
    const paused = await agent.execute({ threadId: 't', messages: 'transfer' }).result();
    expect(paused.status).toBe('paused');

    const resumed = agent.execute({
      threadId: 't',
      resolutions: [{ callId: 'call_transfer', action: 'approve', content: {} }],
    });
    await live.state.answered.promise;
    resumed.stop();
    const { result } = await finish(resumed);

    expect(result.status).toBe('cancelled');
    expect(live.state.aborted).toBe(true);
    expect(live.state.finished).toBe(false);
    const items = await agent.history.loadItems('t');
    expectEveryCallAnsweredOnce(items);
    expect(items).toContainEqual(
      expect.objectContaining({
        type: 'function_call_output',
        callId: 'call_transfer',
        output: expect.objectContaining({ error: expect.objectContaining({ code: 'cancelled' }) }),
      }),
    );
  });

  it('on the wire: stopping a resumed run cancels the pushed-elicitation call it continued', async () => {
    const bank = await startSlowElicitationServer({ workMs: 3_000 });
    servers.push(bank);
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_transfer', name: 'transfer', arguments: { amount: 5 } }] },
      { text: 'never asked' },
    ]);
    const server = mcpServer({ url: bank.url, name: 'bank' });
    servers.push(server);
    const agent = new Agent({ name: 'stop', model, mcpServers: [server] });
    const paused = await agent.execute({ threadId: 't', messages: 'transfer 5' }).result();
    expect(paused.status).toBe('paused');
    expect(paused.interrupts[0]).toMatchObject({ mode: 'form', toolName: 'transfer' });

    const resumed = agent.execute({
      threadId: 't',
      resolutions: [{ callId: 'call_transfer', action: 'approve', content: { confirm: true } }],
    });
    await expect.poll(() => bank.answered()).toBe(1);
    resumed.stop();
    const { result } = await finish(resumed);

    expect(result.status).toBe('cancelled');
    await expect.poll(() => bank.cancelled()).toBe(1);
    expect(bank.completed()).toBe(0);
    const items = await agent.history.loadItems('t');
    expectEveryCallAnsweredOnce(items);
  });

  it('stop() on a paused run leaves the pause intact: the live MCP call stays open and answerable', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: {} }] },
      { text: 'Booked.' },
    ]);
    const server = mcpServer({ url: demo.legacyUrl, name: 'demo' });
    servers.push(server);
    const agent = new Agent({ name: 'stop', model, mcpServers: [server] });
    const handle = agent.execute({ threadId: 't', messages: 'book' });
    const paused = await handle.result();
    expect(paused.status).toBe('paused');
    const cancelsBefore = demo.log.filter(
      (entry) => entry.rpcMethod === 'notifications/cancelled',
    ).length;

    handle.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(demo.log.filter((entry) => entry.rpcMethod === 'notifications/cancelled')).toHaveLength(
      cancelsBefore,
    );
    const [row] = await agent.history.loadRuns('t');
    expect(row).toMatchObject({ status: 'paused' });

    const done = await agent
      .execute({
        threadId: 't',
        resolutions: [
          {
            callId: 'book',
            action: 'approve',
            content: { name: 'Ada', date: '2026-12-24', confirm: true },
          },
        ],
      })
      .result();
    expect(done.status).toBe('completed');
    expect(done.output).toContainEqual(
      expect.objectContaining({
        type: 'function_call_output',
        callId: 'book',
        output: expect.objectContaining({ text: expect.stringContaining('Booked a table') }),
      }),
    );
  });

  it('a call held open for a pause that another client continued is cancelled on the wire', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: {} }] },
      { text: 'Booked.' },
      { text: 'Hello again.' },
    ]);
    const history = new MemoryHistoryStore();
    const tabServer = (name: string) => {
      // Each tab its own connection (and session) to the server.
      const created = mcpServer({ url: demo.legacyUrl, name });
      servers.push(created);
      return created;
    };
    const tabA = new Agent({ name: 'a', model, history, mcpServers: [tabServer('a')] });
    const tabB = new Agent({ name: 'b', model, history, mcpServers: [tabServer('b')] });
    expect((await tabA.execute({ threadId: 't', messages: 'book' }).result()).status).toBe(
      'paused',
    );
    const cancels = () =>
      demo.log.filter((entry) => entry.rpcMethod === 'notifications/cancelled').length;
    const before = cancels();

    const done = await tabB
      .execute({
        threadId: 't',
        resolutions: [
          {
            callId: 'book',
            action: 'approve',
            content: { name: 'Ada', date: '2026-12-24', confirm: true },
          },
        ],
      })
      .result();
    expect(done.status).toBe('completed');
    expect(cancels()).toBe(before);

    // Tab A still held the first call open; the next time it touches the thread it lets go.
    const next = await tabA.execute({ threadId: 't', messages: 'hello' }).result();
    expect(next.status).toBe('completed');
    await expect.poll(cancels).toBe(before + 1);
  });

  it('stop() right after a resume starts ends cancelled, and the pause stays answerable', async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { path: '/a' } }] },
      { text: 'Deleted.' },
    ]);
    const runs: string[] = [];
    const guarded = tool({
      name: 'delete_file',
      description: 'Deletes a file.',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => {
        runs.push(path);
        return `deleted ${path}`;
      },
    });
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'stop', model, history, tools: [guarded] });
    await agent.execute({ threadId: 't', messages: 'delete' }).result();
    const approve = {
      threadId: 't',
      resolutions: [{ callId: 'call_delete', action: 'approve' as const }],
    };

    const handle = agent.execute(approve);
    handle.stop();
    const { chunks, result } = await finish(handle);

    expect(result.status).toBe('cancelled');
    expect(chunks.at(-1)?.type).toBe('run.cancelled');
    expect(runs).toEqual([]);
    expect((await history.loadRuns('t'))[0]).toMatchObject({ status: 'paused' });
    const done = await agent.execute(approve).result();
    expect(done.status).toBe('completed');
    expect(runs).toEqual(['/a']);
  });

  it('stop() while a resume claims the run: the approved tool never starts, history says so', async () => {
    const ran: string[] = [];
    const pay = tool({
      name: 'pay',
      description: 'Pays',
      input: z.object({}),
      needsApproval: true,
      execute: () => {
        ran.push('paid');
        return 'paid';
      },
    });
    const history = new MemoryHistoryStore();
    const agent = new Agent({
      name: 'payments',
      history,
      model: mockModel([
        toolCallTurn([{ name: 'pay', arguments: {}, callId: 'c_pay' }]),
        textTurn('Paid.'),
      ]),
      tools: [pay],
    });
    expect((await agent.execute({ threadId: 't', messages: 'pay' }).result()).status).toBe(
      'paused',
    );

    const resumed = agent.execute({
      threadId: 't',
      resolutions: [{ callId: 'c_pay', action: 'approve' }],
    });
    // A few microtasks in: the resume is claiming the run (not stopped synchronously).
    for (let tick = 0; tick < 3; tick++) await Promise.resolve();
    resumed.stop();
    const result = await resumed.result();

    expect(result.status).toBe('cancelled');
    expect(ran).toEqual([]);
    const outputs = (await history.loadRuns('t'))
      .flatMap((run) => run.items)
      .filter((item) => item.type === 'function_call_output');
    expect(outputs).toHaveLength(1);
    expect(JSON.stringify(outputs[0])).not.toContain('paid');
  });
});
