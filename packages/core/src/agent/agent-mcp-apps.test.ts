import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { collectRun, ofType } from '../testing/collect-run.ts';
import { mockModel, textTurn, toolCallTurn } from '../testing/mock-model.ts';
import { Agent } from './agent.ts';

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

/** The apps endpoint, recording every request body it was sent. */
function appsServer(apps: boolean): { server: McpServer; bodies: string[] } {
  const bodies: string[] = [];
  const server = mcpServer({
    url: demo.appsUrl,
    name: 'apps',
    apps,
    fetch: async (input, init) => {
      if (typeof init?.body === 'string') bodies.push(init.body);
      return await fetch(input, init);
    },
  });
  opened.push(server);
  return { server, bodies };
}

describe('MCP Apps in the agent', () => {
  it('advertises io.modelcontextprotocol/ui only when the app opts in', async () => {
    const withApps = appsServer(true);
    await withApps.server.listTools();
    expect(withApps.bodies.join('\n')).toContain('"io.modelcontextprotocol/ui"');
    expect(withApps.bodies.join('\n')).toContain('text/html;profile=mcp-app');

    const without = appsServer(false);
    await without.server.listTools();
    expect(without.bodies.join('\n')).not.toContain('io.modelcontextprotocol/ui');
  });

  it('reads _meta.ui from the listing and keeps app-only tools from the model', async () => {
    const { server } = appsServer(true);
    const tools = await server.listTools();
    const byName = new Map(tools.map((tool) => [tool.originalName, tool]));
    expect(byName.get('show_chart')?.ui).toEqual({ resourceUri: 'ui://demo/chart' });
    expect(byName.get('chart_data')?.ui).toEqual({
      resourceUri: 'ui://demo/chart',
      visibility: ['app'],
    });

    const model = mockModel([
      toolCallTurn('show_chart', { series: 'sales' }),
      toolCallTurn('chart_data', { series: 'sales' }),
      textTurn('Shown.'),
    ]);
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'apps', model, mcpServers: [server], history });
    const { chunks, result } = await collectRun(agent.execute({ messages: 'chart sales' }));

    expect(result.status).toBe('completed');
    const offered = (model.requests[0]?.tools ?? []).map((tool) => tool.name).sort();
    expect(offered).toEqual(['model_only_note', 'order_form', 'probe', 'show_chart']);
    const calls = ofType(chunks, 'tool.call');
    expect(calls[0]?.ui).toEqual({ resourceUri: 'ui://demo/chart' });
    const results = ofType(chunks, 'tool.result');
    expect(results[0]?.output).toMatchObject({
      text: 'Chart of sales: 5 points.',
      ui: { resourceUri: 'ui://demo/chart' },
      structuredContent: { series: 'sales' },
    });
    // The model asked for the app-only tool anyway: it does not exist for the model.
    expect(results[1]?.output).toMatchObject({ isError: true, error: { code: 'tool_not_found' } });

    const stored = await history.loadItems(result.threadId);
    const outputs = stored.filter((item) => item.type === 'function_call_output');
    expect(outputs[0]).toMatchObject({ output: { ui: { resourceUri: 'ui://demo/chart' } } });
  });

  it('lets a view call only its own server tools whose visibility names "app"', async () => {
    const { server } = appsServer(true);
    expect((await server.appTool('chart_data')).originalName).toBe('chart_data');
    expect((await server.appTool('show_chart')).originalName).toBe('show_chart');
    for (const name of ['model_only_note', 'get_weather', 'nope']) {
      const refusal = await server.appTool(name).catch((error: unknown) => error);
      expect(isSwitchboardError(refusal, 'tool_not_found')).toBe(true);
    }
  });

  it('reads a ui:// view with resources/read', async () => {
    const { server } = appsServer(true);
    const [view] = await server.readResource('ui://demo/chart');
    expect(view).toMatchObject({ uri: 'ui://demo/chart', mimeType: 'text/html;profile=mcp-app' });
    expect(view !== undefined && 'text' in view ? view.text : '').toContain('<title>Demo chart');
  });
});
