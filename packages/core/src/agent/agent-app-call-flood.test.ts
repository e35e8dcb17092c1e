import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { AgentChat } from '../chat/agent-chat.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { mockModel, textTurn } from '../testing/mock-model.ts';
import type { AppViewRef } from '../vocabulary/tool-ui.ts';
import { Agent } from './agent.ts';
import { expectEveryCallAnsweredOnce } from './agent-test-support.ts';

/**
 * A view that misbehaves: it floods the host with `tools/call`s at once (through `AgentChat`,
 * as `useAgent` makes them; two tabs of one thread) and sends arguments its tool's schema
 * refuses. Against the demo MCP Apps endpoint
 * over HTTP on 127.0.0.1. Every call gets exactly one output, each tool run is one recorded
 * call, and the thread stays usable.
 */
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

const view: AppViewRef = { server: 'apps', toolName: 'show_chart', callId: 'call_chart' };

function appsAgent(history: MemoryHistoryStore): Agent {
  const server = mcpServer({ url: demo.appsUrl, name: 'apps', apps: true });
  opened.push(server);
  return new Agent({
    name: 'apps',
    model: mockModel([textTurn('ok')]),
    mcpServers: [server],
    history,
  });
}

/** `tools/call`s the apps endpoint answered (this file calls `chart_data` only). */
const appToolCalls = () =>
  demo.log.filter(
    (entry) => entry.rpcMethod === 'tools/call' && entry.path === new URL(demo.appsUrl).pathname,
  ).length;

describe('an MCP Apps view that floods or sends bad arguments', () => {
  it('gives each of many calls at once, from two tabs, one output; what ran is what is recorded', async () => {
    const history = new MemoryHistoryStore();
    // Two tabs of one thread: each its own Agent and chat over the one store.
    const tabs = [
      new AgentChat(appsAgent(history), { threadId: 't1' }),
      new AgentChat(appsAgent(history), { threadId: 't1' }),
    ];
    const before = appToolCalls();
    const outputs = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        tabs[index % 2]?.callToolFromApp({
          view,
          name: 'chart_data',
          arguments: { series: `s${index}` },
        }),
      ),
    );
    expect(outputs).toHaveLength(8);
    for (const output of outputs) {
      // Ran, or refused because another call of the thread was running: never nothing.
      if (output?.isError === true) expect(output.error?.code).toBe('run_in_progress');
      else expect(output?.structuredContent).toMatchObject({ series: expect.any(String) });
    }
    const ran = outputs.filter((output) => output?.isError !== true).length;
    expect(ran).toBeGreaterThan(0);

    const runs = await history.loadRuns('t1');
    const items = runs.flatMap((run) => run.items);
    expectEveryCallAnsweredOnce(items);
    // Each tool run on the server is one recorded call, and the view got its output.
    expect(items.filter((item) => item.type === 'function_call')).toHaveLength(ran);
    expect(appToolCalls() - before).toBe(ran);
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
  });

  it('answers arguments the tool refuses with one error output, and the thread goes on', async () => {
    const history = new MemoryHistoryStore();
    const agent = appsAgent(history);
    const bad = agent.callToolFromApp({
      threadId: 't1',
      view,
      name: 'chart_data',
      arguments: { series: 42, extra: { deep: [1, 2, 3] } },
    });
    const output = await bad.output();
    expect(output.isError).toBe(true);
    expect(output.text).toMatch(/series/);
    const good = agent.callToolFromApp({
      threadId: 't1',
      view,
      name: 'chart_data',
      arguments: { series: 'sales' },
    });
    expect((await good.output()).structuredContent).toMatchObject({ series: 'sales' });
    const items = (await history.loadRuns('t1')).flatMap((run) => run.items);
    expectEveryCallAnsweredOnce(items);
    expect(items.filter((item) => item.type === 'function_call')).toHaveLength(2);
  });
});
