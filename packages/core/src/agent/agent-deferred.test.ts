import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { ScriptedReply } from '@switchboard/fixtures';
import type { ScriptedModelServer, ScriptedRequestRecord } from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import type { Tool } from '../tools/tool-types.ts';
import { Agent } from './agent.ts';
import { closeScriptedModelServers, scripted, toolMessage } from './agent-test-support.ts';

afterEach(closeScriptedModelServers);

/** Names of the tools offered in the n-th request. */
function offered(server: ScriptedModelServer, index: number): string[] {
  return (server.requests[index]?.tools ?? []).map((entry) => entry.function.name);
}

/** The system message of a request ('' when there is none). */
function systemText(request: ScriptedRequestRecord | undefined): string {
  const system = request?.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

/** A tool that records its runs. */
function simpleTool(name: string, description: string, deferred = true): Tool {
  return tool({
    name,
    description,
    input: z.object({}),
    deferred,
    execute: () => `${name} ran`,
  });
}

const add = simpleTool('add', 'Adds two numbers.', false);
const weather = simpleTool(
  'get_weather',
  'Gets the weather forecast for a city.\nUses the national weather service.',
);
const email = simpleTool('send_email', 'Sends an email message to a recipient.');
const invoice = simpleTool('create_invoice', 'Creates an invoice for a customer.');
const TOOLS = [add, weather, email, invoice];

const search = (id: string, query: string, maxResults?: number): ScriptedReply => ({
  toolCalls: [
    {
      id,
      name: 'tool_search',
      arguments: maxResults === undefined ? { query } : { query, max_results: maxResults },
    },
  ],
});

describe('Deferred tools', () => {
  it('stay out of the tool list; tool_search is offered and the instructions list them', async () => {
    const { server, model } = await scripted([{ text: 'Hi.' }]);
    const agent = new Agent({ name: 'test', instructions: 'Be brief.', model, tools: TOOLS });

    await agent.execute({ messages: 'hi' }).result();

    expect(offered(server, 0)).toEqual(['add', 'tool_search']);
    const searchTool = server.requests[0]?.tools?.[1]?.function;
    expect(searchTool?.parameters).toMatchObject({
      properties: { query: { type: 'string' }, max_results: { type: 'integer' } },
      required: ['query'],
    });
    const system = systemText(server.requests[0]);
    expect(system.startsWith('Be brief.\n\n')).toBe(true);
    expect(system).toContain('tool_search');
    expect(system).toContain('select:');
    // One line per deferred tool: its name and the first line of its description.
    expect(system).toContain('- get_weather: Gets the weather forecast for a city.');
    expect(system).not.toContain('national weather service');
    expect(system).toContain('- send_email: Sends an email message to a recipient.');
    expect(system).toContain('- create_invoice: Creates an invoice for a customer.');
    expect(system).not.toContain('- add');
  });

  it('deferredToolsInstructions: false leaves the instructions alone', async () => {
    const { server, model } = await scripted([{ text: 'Hi.' }]);
    const agent = new Agent({
      name: 'test',
      instructions: 'Be brief.',
      model,
      tools: TOOLS,
      deferredToolsInstructions: false,
    });

    await agent.execute({ messages: 'hi' }).result();

    expect(systemText(server.requests[0])).toBe('Be brief.');
    expect(offered(server, 0)).toEqual(['add', 'tool_search']);
  });

  it('without deferred tools there is no tool_search and no section', async () => {
    const { server, model } = await scripted([{ text: 'Hi.' }]);
    const agent = new Agent({ name: 'test', instructions: 'Be brief.', model, tools: [add] });

    await agent.execute({ messages: 'hi' }).result();

    expect(offered(server, 0)).toEqual(['add']);
    expect(systemText(server.requests[0])).toBe('Be brief.');
  });

  it('select then keywords load tools as a union that lasts for the thread', async () => {
    const { server, model } = await scripted([
      search('call_s1', 'select:get_weather'),
      search('call_s2', 'email a message to someone'),
      { toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: {} }] },
      { text: 'Done.' },
      { text: 'Later run.' },
      { text: 'Run from a new agent.' },
    ]);
    const history = new MemoryHistoryStore();
    const agent = new Agent({ name: 'test', model, history, tools: TOOLS });

    const first = await agent.execute({ threadId: 't-deferred', messages: 'go' }).result();

    expect(first.status).toBe('completed');
    expect(offered(server, 0)).toEqual(['add', 'tool_search']);
    expect(offered(server, 1)).toEqual(['add', 'get_weather', 'tool_search']);
    expect(toolMessage(server.requests[1]?.messages, 'call_s1')).toBe(
      'Loaded 1 tool(s); they can be called now:\n- get_weather: Gets the weather forecast for a city.',
    );
    expect(systemText(server.requests[1])).not.toContain('- get_weather');
    expect(systemText(server.requests[1])).toContain('- send_email');

    expect(offered(server, 2)).toEqual(['add', 'get_weather', 'send_email', 'tool_search']);
    expect(toolMessage(server.requests[2]?.messages, 'call_s2')).toContain('- send_email');
    expect(toolMessage(server.requests[3]?.messages, 'call_w')).toBe('get_weather ran');

    const [row] = await history.loadRuns('t-deferred');
    expect([...(row?.state?.activatedTools ?? [])].sort()).toEqual(['get_weather', 'send_email']);

    // A later run of the same thread keeps them, also from a new Agent over the same store.
    await agent.execute({ threadId: 't-deferred', messages: 'again' }).result();
    expect(offered(server, 4)).toEqual(['add', 'get_weather', 'send_email', 'tool_search']);
    expect(systemText(server.requests[4])).toContain('- create_invoice');
    expect(systemText(server.requests[4])).not.toContain('- send_email');

    await new Agent({ name: 'other', model, history, tools: TOOLS })
      .execute({ threadId: 't-deferred', messages: 'once more' })
      .result();
    expect(offered(server, 5)).toEqual(['add', 'get_weather', 'send_email', 'tool_search']);

    // Another thread starts without them.
    await agent.execute({ threadId: 't-other', messages: 'hi' }).result();
    expect(offered(server, 6)).toEqual(['add', 'tool_search']);
  });

  it('activated tools survive a pause and resume', async () => {
    const { server, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_s', name: 'tool_search', arguments: { query: 'select:create_invoice' } },
          { id: 'call_g', name: 'guarded', arguments: {} },
        ],
      },
      { text: 'Done.' },
    ]);
    const guarded = tool({
      name: 'guarded',
      description: 'Needs approval.',
      input: z.object({}),
      needsApproval: true,
      execute: () => 'guarded ran',
    });
    const history = new MemoryHistoryStore();
    const tools = [...TOOLS, guarded];
    const paused = await new Agent({ name: 'a', model, history, tools })
      .execute({ threadId: 't-pause', messages: 'go' })
      .result();
    expect(paused.status).toBe('paused');
    expect((await history.loadRuns('t-pause'))[0]?.state?.activatedTools).toEqual([
      'create_invoice',
    ]);

    await new Agent({ name: 'b', model, history, tools })
      .execute({ threadId: 't-pause', resolutions: [{ callId: 'call_g', action: 'approve' }] })
      .result();

    expect(offered(server, 1)).toContain('create_invoice');
  });

  it('max_results limits a keyword search; the default is 5', async () => {
    const reports = Array.from({ length: 7 }, (_, index) =>
      simpleTool(`report_${index}`, `Builds sales report number ${index}.`),
    );
    const { server, model } = await scripted([
      search('call_two', 'sales report', 2),
      search('call_default', 'sales report'),
      { text: 'Done.' },
    ]);
    const agent = new Agent({ name: 'test', model, tools: reports });

    await agent.execute({ messages: 'reports' }).result();

    const afterTwo = offered(server, 1).filter((name) => name.startsWith('report_'));
    expect(afterTwo).toHaveLength(2);
    expect(toolMessage(server.requests[1]?.messages, 'call_two')).toMatch(/^Loaded 2 tool\(s\)/);
    expect(toolMessage(server.requests[2]?.messages, 'call_default')).toMatch(
      /^Loaded 5 tool\(s\)/,
    );
    // Union of both searches: at least 5, at most 7, always including the first two.
    const afterDefault = offered(server, 2).filter((name) => name.startsWith('report_'));
    expect(afterDefault.length).toBeGreaterThanOrEqual(5);
    expect(afterDefault).toEqual(expect.arrayContaining(afterTwo));
  });

  it('select ignores unknown names and tools that are not deferred', async () => {
    const { server, model } = await scripted([
      search('call_mixed', 'select: nope , get_weather,add,, also_nope'),
      search('call_none', 'select:nope'),
      search('call_nothing', 'zebra xylophone'),
      { text: 'Done.' },
    ]);
    const agent = new Agent({ name: 'test', model, tools: TOOLS });

    const result = await agent.execute({ messages: 'go' }).result();

    expect(result.status).toBe('completed');
    expect(toolMessage(server.requests[1]?.messages, 'call_mixed')).toBe(
      'Loaded 1 tool(s); they can be called now:\n- get_weather: Gets the weather forecast for a city.',
    );
    expect(offered(server, 1)).toEqual(['add', 'get_weather', 'tool_search']);
    expect(toolMessage(server.requests[2]?.messages, 'call_none')).toBe(
      'No deferred tools matched "select:nope".',
    );
    expect(toolMessage(server.requests[3]?.messages, 'call_nothing')).toMatch(/^No deferred tools/);
    expect(offered(server, 3)).toEqual(['add', 'get_weather', 'tool_search']);
  });

  it('max_results out of range is an argument error the model can read', async () => {
    const { server, model } = await scripted([search('call_bad', 'weather', 0), { text: 'Ok.' }]);
    const agent = new Agent({ name: 'test', model, tools: TOOLS });

    await agent.execute({ messages: 'go' }).result();

    expect(toolMessage(server.requests[1]?.messages, 'call_bad')).toMatch(
      /^Error: Invalid arguments/,
    );
    expect(offered(server, 1)).toEqual(['add', 'tool_search']);
  });
});
