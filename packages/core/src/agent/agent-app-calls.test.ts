import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { collectRun, ofType } from '../testing/collect-run.ts';
import { mockModel, textTurn } from '../testing/mock-model.ts';
import type { AppViewRef } from '../vocabulary/tool-ui.ts';
import { Agent } from './agent.ts';
import type { AgentOptions } from './agent-options.ts';
import { destructiveToolsNeedApproval } from './approval-policies.ts';

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

const view: AppViewRef = { server: 'apps', toolName: 'order_form', callId: 'call_form' };

/** An agent over the demo apps endpoint, with the approval policy of the apps. */
function appsAgent(history: MemoryHistoryStore, options: Partial<AgentOptions> = {}): Agent {
  const server = mcpServer({ url: demo.appsUrl, name: 'apps', apps: true });
  opened.push(server);
  return new Agent({
    name: 'apps',
    model: mockModel([textTurn('ok')]),
    mcpServers: [server],
    approvalPolicy: destructiveToolsNeedApproval,
    history,
    ...options,
  });
}

describe('an MCP Apps view calls a tool through the agent', () => {
  it('runs a read-only app tool at once, recorded as its own run the model never sees', async () => {
    const history = new MemoryHistoryStore();
    const model = mockModel([textTurn('Noted.')]);
    const agent = appsAgent(history, { model });
    const call = agent.callToolFromApp({
      threadId: 't1',
      view: { server: 'apps', toolName: 'show_chart', callId: 'call_chart' },
      name: 'chart_data',
      arguments: { series: 'sales' },
    });
    const { chunks, result } = await collectRun(call);
    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'tool.call')[0]).toMatchObject({
      callId: call.callId,
      toolName: 'chart_data',
      server: 'apps',
      requestedBy: { server: 'apps', toolName: 'show_chart', callId: 'call_chart' },
    });
    const output = await call.output();
    expect(output.isError).toBeUndefined();
    expect(output.structuredContent).toMatchObject({ series: 'sales' });

    const rows = await history.loadRuns('t1');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.items.map((item) => item.type)).toEqual([
      'function_call',
      'function_call_output',
    ]);
    expect(rows[0]?.items[0]).toMatchObject({ requestedBy: { callId: 'call_chart' } });

    // The next model turn gets neither the call nor its output.
    await collectRun(agent.execute({ threadId: 't1', messages: 'hello' }));
    const sent = JSON.stringify(model.requests[0]?.items);
    expect(sent).not.toContain(call.callId);
    expect(model.requests[0]?.items).toEqual([{ type: 'message', role: 'user', content: 'hello' }]);
  });

  it('pauses a destructive call on an approval interrupt; of two tabs approving, it runs once', async () => {
    const history = new MemoryHistoryStore();
    const before = demo.appOrders.length;
    const tabA = appsAgent(history);
    const tabB = appsAgent(history);
    const call = tabA.callToolFromApp({
      threadId: 't2',
      view,
      name: 'place_order',
      arguments: { item: 'tea', quantity: 2 },
    });
    const paused = await call.result();
    expect(paused.status).toBe('paused');
    expect(paused.interrupts).toEqual([
      expect.objectContaining({
        callId: call.callId,
        mode: 'approval',
        toolName: 'place_order',
        server: 'apps',
        arguments: { item: 'tea', quantity: 2 },
        requestedBy: view,
        annotations: expect.objectContaining({ destructiveHint: true }),
      }),
    ]);
    expect(demo.appOrders.length).toBe(before);
    // The pause is stored: a reloaded page (a new Agent) finds it.
    const stored = await tabB.loadThread('t2');
    expect(stored.at(-1)?.state?.pending[0]?.interrupt.requestedBy).toEqual(view);

    const waiting = call.output();
    const resolutions = [{ callId: call.callId, action: 'approve' as const }];
    const [first, second] = await Promise.all([
      tabA.execute({ threadId: 't2', resolutions }).result(),
      tabB.execute({ threadId: 't2', resolutions }).result(),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual(['completed', 'failed']);
    expect([first.error?.code, second.error?.code]).toContain('run_claimed');
    expect(demo.appOrders.slice(before)).toEqual([{ item: 'tea', quantity: 2 }]);

    const output = await waiting;
    expect(output.text).toMatch(/^Ordered 2 × tea \(order \d+\)\.$/);
    const items = await history.loadItems('t2');
    expect(items.filter((item) => item.type === 'function_call_output')).toHaveLength(1);
    // The resumed app run called no model.
    expect(items.some((item) => item.type === 'message')).toBe(false);
  });

  it('gives the view a rejected output when the user refuses, and runs nothing', async () => {
    const history = new MemoryHistoryStore();
    const before = demo.appOrders.length;
    const agent = appsAgent(history);
    const call = agent.callToolFromApp({
      threadId: 't3',
      view,
      name: 'place_order',
      arguments: { item: 'coffee', quantity: 1 },
    });
    expect((await call.result()).status).toBe('paused');
    const waiting = call.output();
    await agent
      .execute({ threadId: 't3', resolutions: [{ callId: call.callId, action: 'reject' }] })
      .result();
    expect(await waiting).toMatchObject({ isError: true, error: { code: 'rejected' } });
    expect(demo.appOrders.length).toBe(before);
  });

  it('refuses a tool the app may not call, and a busy thread, storing nothing', async () => {
    const history = new MemoryHistoryStore();
    const agent = appsAgent(history);
    const invisible = agent.callToolFromApp({ threadId: 't4', view, name: 'model_only_note' });
    expect(await invisible.output()).toMatchObject({
      isError: true,
      error: { code: 'tool_not_found' },
    });
    const otherServer = agent.callToolFromApp({
      threadId: 't4',
      view: { ...view, server: 'elsewhere' },
      name: 'chart_data',
    });
    expect(await otherServer.output()).toMatchObject({ error: { code: 'tool_not_found' } });
    expect(await history.loadRuns('t4')).toEqual([]);

    const pending = agent.callToolFromApp({
      threadId: 't4',
      view,
      name: 'place_order',
      arguments: { item: 'tea', quantity: 1 },
    });
    expect((await pending.result()).status).toBe('paused');
    // A second call while the first waits for its answer: refused, the pause stays.
    const second = agent.callToolFromApp({
      threadId: 't4',
      view,
      name: 'chart_data',
      arguments: { series: 'sales' },
    });
    expect(await second.output()).toMatchObject({ error: { code: 'run_in_progress' } });
    const rows = await history.loadRuns('t4');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe('paused');
    expect(await pending.output({ timeoutMs: 1 })).toMatchObject({ error: { code: 'timeout' } });
  });
});

describe('model context from an MCP Apps view', () => {
  it('is stored with the thread; the model reads the latest per view, labelled', async () => {
    const history = new MemoryHistoryStore();
    const model = mockModel([textTurn('Seen.')]);
    const agent = appsAgent(history, { model });
    const chart: AppViewRef = { server: 'apps', toolName: 'show_chart', callId: 'call_chart' };
    expect(
      await agent.updateModelContextFromApp({ threadId: 't5', view: chart, text: 'old view' }),
    ).toBe('stored');
    expect(
      await agent.updateModelContextFromApp({
        threadId: 't5',
        view: chart,
        text: 'Selected: March',
        structuredContent: { month: 3 },
      }),
    ).toBe('stored');
    await agent.updateModelContextFromApp({ threadId: 't5', view, text: 'Cart: tea' });

    // Survives a reload: a new agent over the same store sends it.
    const reloaded = appsAgent(history, { model });
    await collectRun(reloaded.execute({ threadId: 't5', messages: 'what did I pick?' }));
    const items = model.requests[0]?.items ?? [];
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({ type: 'message', role: 'user' });
    const texts = items.map((item) => (item.type === 'message' ? item.content : ''));
    expect(texts[0]).toContain(
      '[Context from an MCP App view (server "apps", tool "show_chart", call call_chart).',
    );
    expect(texts[0]).toContain('not the user');
    expect(texts[0]).toContain('Selected: March\n{"month":3}');
    expect(texts.join('\n')).not.toContain('old view');
    expect(texts[1]).toContain('tool "order_form", call call_form');
    expect(texts[2]).toBe('what did I pick?');
  });

  it('is held while the thread waits for an answer, and stored once the run ended', async () => {
    const history = new MemoryHistoryStore();
    const agent = appsAgent(history);
    const pending = agent.callToolFromApp({
      threadId: 't6',
      view,
      name: 'place_order',
      arguments: { item: 'tea', quantity: 1 },
    });
    expect((await pending.result()).status).toBe('paused');
    expect(await agent.updateModelContextFromApp({ threadId: 't6', view, text: 'Cart: tea' })).toBe(
      'held',
    );
    expect(await history.loadRuns('t6')).toHaveLength(1);
    await agent
      .execute({ threadId: 't6', resolutions: [{ callId: pending.callId, action: 'reject' }] })
      .result();
    await expect
      .poll(async () => (await history.loadItems('t6')).filter((item) => item.type === 'message'))
      .toEqual([{ type: 'message', role: 'user', content: 'Cart: tea', appContext: view }]);
  });
});
