import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent } from '../agent/agent.ts';
import { AgentChat } from '../chat/agent-chat.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { HistoryStore } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { TabStore } from '../history/tab-store-test-support.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { startEverythingServer, type EverythingServer } from '@switchboard/fixtures';
import { scriptFromReplies, type ScriptedReply } from '@switchboard/fixtures';
import { startScriptedModelServer, type ScriptedModelServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer } from './mcp-server.ts';

/*
 * MCP tasks against the demo server over real HTTP, both eras: `/modern/mcp` speaks the
 * 2026-07-28 extension `io.modelcontextprotocol/tasks`, `/legacy/mcp` the 2025-11-25
 * experimental tasks. The task tools are `generate_report` (slow, reports each step),
 * `approve_deployment` (asks mid-task) and `run_failing_job` (fails).
 */

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function scripted(replies: ScriptedReply[]): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  opened.push(server);
  return server;
}

function server(url: string): McpServer {
  const created = mcpServer({ url, name: 'demo' });
  opened.push(created);
  return created;
}

function agentFor(
  model: ScriptedModelServer,
  servers: McpServer[],
  history: HistoryStore,
  leaseMs?: number,
) {
  return new Agent({
    name: 'tasks',
    model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
    mcpServers: servers,
    history,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
}

function outputOf(result: { output: { type: string }[] }, callId: string): unknown {
  return result.output.find(
    (item) =>
      item.type === 'function_call_output' && (item as { callId?: string }).callId === callId,
  );
}

/** How many `method` requests the demo server answered so far. */
const requestsOf = (method: string) =>
  demo.log.filter((entry) => entry.rpcMethod === method && entry.status < 300).length;

const eras = [
  { era: '2026-07-28', url: () => demo.modernUrl },
  { era: '2025-11-25', url: () => demo.legacyUrl },
] as const;

describe.each(eras)('MCP tasks ($era)', ({ url }) => {
  it('a slow task is polled to its end, with its status as progress, and gives one output', async () => {
    const model = await scripted([
      {
        toolCalls: [
          {
            id: 'report',
            name: 'generate_report',
            arguments: { topic: 'tides', steps: 3, stepMs: 50 },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const agent = agentFor(model, [server(url())], new MemoryHistoryStore());
    const polls = requestsOf('tasks/get');
    const handle = agent.execute({ threadId: 't', messages: 'report' });
    const chunks: Chunk[] = [];
    for await (const chunk of handle.chunks) chunks.push(chunk);
    const result = await handle.result();

    expect(result.status).toBe('completed');
    expect(outputOf(result, 'report')).toMatchObject({
      output: { text: 'Report on tides: 3 sections written.' },
    });
    const results = chunks.filter((chunk) => chunk.type === 'tool.result');
    expect(results).toHaveLength(1);
    const progress = chunks.flatMap((chunk) => (chunk.type === 'tool.progress' ? [chunk] : []));
    expect(progress[0]?.task).toMatchObject({ status: 'working' });
    expect(progress.map((chunk) => chunk.message)).toContain('Step 1 of 3: writing about tides');
    expect(requestsOf('tasks/get')).toBeGreaterThan(polls);
  });

  it('input_required inside a task becomes a form interrupt; the answer completes the task', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'deploy', name: 'approve_deployment', arguments: { service: 'api' } }] },
      { text: 'Deployed.' },
    ]);
    const agent = agentFor(model, [server(url())], new MemoryHistoryStore());
    const paused = await agent.execute({ threadId: 't', messages: 'deploy' }).result();
    expect(paused.status).toBe('paused');
    expect(paused.interrupts[0]).toMatchObject({
      callId: 'deploy',
      mode: 'form',
      message: 'Deploy api to production now?',
      requestedSchema: { type: 'object', required: ['confirm'] },
    });

    const done = await agent
      .execute({
        threadId: 't',
        resolutions: [{ callId: 'deploy', action: 'approve', content: { confirm: true } }],
      })
      .result();
    expect(done.status).toBe('completed');
    expect(outputOf(done, 'deploy')).toMatchObject({
      output: { text: 'Deployed api to production.' },
    });
  });

  it('a failed task is a clear error output naming the task and the server', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'job', name: 'run_failing_job', arguments: {} }] },
      { text: 'It failed.' },
    ]);
    const agent = agentFor(model, [server(url())], new MemoryHistoryStore());
    const result = await agent.execute({ threadId: 't', messages: 'run' }).result();
    expect(result.status).toBe('completed');
    expect(outputOf(result, 'job')).toMatchObject({
      output: {
        isError: true,
        text: expect.stringContaining('The job ran out of disk space (demo).'),
        error: { code: -32603 },
      },
    });
  });

  it('stop() sends tasks/cancel and the call gets exactly one output', async () => {
    const model = await scripted([
      {
        toolCalls: [
          {
            id: 'report',
            name: 'generate_report',
            arguments: { topic: 'glaciers', steps: 1000, stepMs: 1000 },
          },
        ],
      },
      { text: 'unused' },
    ]);
    const agent = agentFor(model, [server(url())], new MemoryHistoryStore());
    const cancels = requestsOf('tasks/cancel');
    const handle = agent.execute({ threadId: 't', messages: 'report' });
    for await (const chunk of handle.chunks) {
      // The task exists once its first status arrived: stop then.
      if (chunk.type === 'tool.progress') handle.stop();
    }
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    const outputs = result.output.filter(
      (item) => item.type === 'function_call_output' && item.callId === 'report',
    );
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toMatchObject({ output: { error: { code: 'cancelled' } } });
    // The run ends at once on stop; the call sends `tasks/cancel` as it unwinds.
    await vi.waitFor(() => expect(requestsOf('tasks/cancel')).toBe(cancels + 1));
  });

  it('a reload mid-task (a new Agent over the same store) resumes polling: one tools/call, one output', async () => {
    const model = await scripted([
      {
        toolCalls: [
          {
            id: 'report',
            name: 'generate_report',
            arguments: { topic: 'dunes', steps: 6, stepMs: 150 },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const stored = new MemoryHistoryStore();
    const tab = new TabStore(stored);
    const firstServer = server(url());
    const first = agentFor(model, [firstServer], tab, 300);
    const calls = requestsOf('tools/call');
    void first.execute({ threadId: 't', messages: 'report' });
    // The task's id is stored with the running run before the "page" goes away.
    await expect
      .poll(async () => (await stored.loadRuns('t'))[0]?.state?.resumable?.length)
      .toBe(1);
    tab.die();
    await firstServer.close();
    // The closed tab's lease runs out (300 ms) before the next client may take the run over.
    await new Promise((resolve) => setTimeout(resolve, 400));

    const second = agentFor(model, [server(url())], stored, 300);
    const polls = requestsOf('tasks/get');
    const result = await second
      .execute({ threadId: 't', resolutions: [{ callId: 'report', action: 'approve' }] })
      .result();

    expect(result.status).toBe('completed');
    expect(requestsOf('tools/call')).toBe(calls + 1);
    expect(requestsOf('tasks/get')).toBeGreaterThan(polls);
    const items = (await stored.loadRuns('t')).flatMap((row) => row.items);
    const outputs = items.filter(
      (item) => item.type === 'function_call_output' && item.callId === 'report',
    );
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toMatchObject({ output: { text: 'Report on dunes: 6 sections written.' } });
  });

  it('a task left behind by a reload can be given up: tasks/cancel, one cancelled output', async () => {
    const model = await scripted([
      {
        toolCalls: [
          {
            id: 'report',
            name: 'generate_report',
            arguments: { topic: 'moons', steps: 1000, stepMs: 1000 },
          },
        ],
      },
      { text: 'Cancelled.' },
    ]);
    const stored = new MemoryHistoryStore();
    const tab = new TabStore(stored);
    const firstServer = server(url());
    void agentFor(model, [firstServer], tab, 300).execute({ threadId: 't', messages: 'report' });
    await expect
      .poll(async () => (await stored.loadRuns('t'))[0]?.state?.resumable?.length)
      .toBe(1);
    tab.die();
    await firstServer.close();
    await new Promise((resolve) => setTimeout(resolve, 400));

    const second = agentFor(model, [server(url())], stored, 300);
    const cancels = requestsOf('tasks/cancel');
    const recovered = (await second.loadThread('t')).at(-1);
    expect(recovered?.status).toBe('paused');
    expect(recovered?.state?.pending.map((pending) => pending.interrupt)).toEqual([
      expect.objectContaining({ callId: 'report', mode: 'task', server: 'demo' }),
    ]);
    const result = await second
      .execute({ threadId: 't', resolutions: [{ callId: 'report', action: 'cancel' }] })
      .result();
    expect(result.status).toBe('completed');
    expect(requestsOf('tasks/cancel')).toBe(cancels + 1);
    expect(outputOf(result, 'report')).toMatchObject({ output: { error: { code: 'cancelled' } } });
  });

  it('an AgentChat that loads a thread recovered on a task resumes it by itself', async () => {
    const model = await scripted([
      {
        toolCalls: [
          {
            id: 'report',
            name: 'generate_report',
            arguments: { topic: 'reefs', steps: 4, stepMs: 150 },
          },
        ],
      },
      { text: 'Here is the report.' },
    ]);
    const stored = new MemoryHistoryStore();
    const tab = new TabStore(stored);
    const firstServer = server(url());
    void agentFor(model, [firstServer], tab, 300).execute({ threadId: 't', messages: 'report' });
    await expect
      .poll(async () => (await stored.loadRuns('t'))[0]?.state?.resumable?.length)
      .toBe(1);
    tab.die();
    await firstServer.close();
    await new Promise((resolve) => setTimeout(resolve, 400));

    const chat = new AgentChat(agentFor(model, [server(url())], stored, 300), { threadId: 't' });
    await chat.load();
    await expect.poll(() => chat.getSnapshot().status).toBe('idle');
    const parts = chat.getSnapshot().messages.flatMap((message) => message.parts);
    expect(parts).toContainEqual(
      expect.objectContaining({
        type: 'tool-call',
        callId: 'report',
        state: 'done',
        output: expect.objectContaining({ text: 'Report on reefs: 4 sections written.' }),
      }),
    );
    expect(parts).toContainEqual({ type: 'text', text: 'Here is the report.' });
  });
});

describe('MCP tasks against the reference everything server (2025-11-25, SDK v1 tasks)', () => {
  let everything: EverythingServer;
  beforeAll(async () => {
    everything = await startEverythingServer();
  });
  afterAll(async () => {
    await everything.close();
  });

  it('simulate-research-query (taskSupport "required") runs as a task; its question reaches onInput', async () => {
    const reference = server(everything.url);
    const tools = await reference.listTools();
    expect(tools.find((tool) => tool.originalName === 'simulate-research-query')).toMatchObject({
      taskSupport: 'required',
    });
    const asked: unknown[] = [];
    const statuses = new Set<string>();
    const output = await reference.callTool(
      'simulate-research-query',
      { topic: 'python', ambiguous: true },
      {
        onProgress: (progress) => {
          if (progress.task !== undefined) statuses.add(progress.task.status);
        },
        onInput: async (request) => {
          asked.push(request);
          return { action: 'approve', content: { interpretation: 'programming' } };
        },
      },
    );
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'form',
        message: expect.stringContaining('could have multiple interpretations'),
      }),
    ]);
    expect(statuses.has('working')).toBe(true);
    expect(output.isError).toBeUndefined();
    expect(output.text).toContain('# Research Report: python (programming)');
  });
});
