import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFaultyMcpServer, type FaultyMcpServer } from '@switchboard/fixtures';
import type { RunRecord } from '../history/history-store.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import type { Model } from '../model/model.ts';
import { tool } from '../tools/tool.ts';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { closeScriptedModelServers, finish, scripted } from './agent-test-support.ts';

/**
 * No listener leaks: long runs and many calls that share one abort signal leave no `abort`
 * listener behind (Node warns with MaxListenersExceededWarning past 10 on one signal).
 */
const started: { close(): Promise<void> }[] = [];
const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning);
};

beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});

afterEach(async () => {
  process.off('warning', onWarning);
  await Promise.all(started.splice(0).map((item) => item.close()));
  await closeScriptedModelServers();
});

async function faulty(): Promise<FaultyMcpServer> {
  const server = await startFaultyMcpServer();
  started.push(server);
  return server;
}

function client(url: string): McpServer {
  const server = mcpServer({ url, name: 'faulty' });
  started.push(server);
  return server;
}

function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

function maxListenerWarnings(): Error[] {
  return warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning');
}

/**
 * The memory store, keeping rows by reference: `MemoryHistoryStore` copies the whole run row
 * (`structuredClone`) on every save, which alone costs ~7 s over a 1,000-turn run (quadratic);
 * this test is about listeners, not storage.
 */
class ByReferenceHistoryStore extends MemoryHistoryStore {
  readonly #rows = new Map<string, RunRecord>();
  override async saveRun(run: RunRecord): Promise<void> {
    await Promise.resolve();
    this.#rows.set(run.runId, run);
  }
  override async loadRuns(threadId: string): Promise<RunRecord[]> {
    await Promise.resolve();
    return [...this.#rows.values()].filter((run) => run.threadId === threadId);
  }
}

/** Each turn asks for the MCP `echo` tool and the local `probe`; after `turns` turns, answers. */
function loopingModel(turns: number): Model {
  return {
    provider: 'test',
    modelId: 'loop',
    async *stream(request) {
      const turn = request.items.filter((item) => item.type === 'function_call').length / 2;
      if (turn >= turns) {
        yield { type: 'text.delta', delta: 'done' };
        yield { type: 'done' };
        return;
      }
      yield { type: 'tool.call', callId: `echo_${turn}`, name: 'echo', arguments: '{}' };
      yield { type: 'tool.call', callId: `probe_${turn}`, name: 'probe', arguments: '{}' };
      yield { type: 'done' };
    },
  };
}

/** A local tool that records how many `abort` listeners the run's signal carries. */
function listenerProbe(counts: number[]) {
  return tool({
    name: 'probe',
    description: 'Counts abort listeners.',
    input: z.object({}),
    execute: (_args, context) => {
      counts.push(abortListeners(context.signal));
      return 'ok';
    },
  });
}

describe('abort listeners', () => {
  it('a 1,000-turn run with an MCP call per turn leaves no listener behind', async () => {
    const server = await faulty();
    const counts: number[] = [];
    const agent = new Agent({
      name: 'long',
      model: loopingModel(1_000),
      maxTurns: 1_001,
      history: new ByReferenceHistoryStore(),
      tools: [listenerProbe(counts)],
      mcpServers: [client(server.url)],
    });
    const outer = new AbortController();
    const { result } = await finish(agent.execute({ messages: 'go', signal: outer.signal }));

    expect(result.status, result.error?.message).toBe('completed');
    expect(server.calls).toHaveLength(1_000);
    expect(counts).toHaveLength(1_000);
    // At most the listeners of the calls in flight, never one per turn that has been.
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    expect(counts.at(-1)).toBeLessThanOrEqual(counts[1] ?? 0);
    expect(abortListeners(outer.signal)).toBe(0);
    expect(maxListenerWarnings()).toEqual([]);
  }, 60_000);

  it('a run through the OpenAI SDK against a model server adds no listener per turn', async () => {
    const server = await faulty();
    const turns = 25;
    const { model } = await scripted((request) => {
      const done = request.messages.filter((message) => message.role === 'tool').length / 2;
      return done >= turns
        ? { text: 'done' }
        : {
            toolCalls: [
              { name: 'echo', arguments: {} },
              { name: 'probe', arguments: {} },
            ],
          };
    });
    const counts: number[] = [];
    const agent = new Agent({
      name: 'sdk',
      model,
      maxTurns: turns + 1,
      tools: [listenerProbe(counts)],
      mcpServers: [client(server.url)],
    });
    const { result } = await finish(agent.execute({ messages: 'go' }));

    expect(result.status, result.error?.message).toBe('completed');
    expect(counts).toHaveLength(turns);
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    expect(maxListenerWarnings()).toEqual([]);
  });

  it('runs sharing one caller signal put one listener on it in all, none once they end', async () => {
    const shared = new AbortController();
    const seen: number[] = [];
    const model: Model = {
      provider: 'test',
      modelId: 'count',
      async *stream() {
        seen.push(abortListeners(shared.signal));
        await new Promise((resolve) => setTimeout(resolve, 10));
        yield { type: 'text.delta', delta: 'ok' };
        yield { type: 'done' };
      },
    };
    const agent = new Agent({ name: 'many', model });
    const handles = Array.from({ length: 200 }, () =>
      agent.execute({ messages: 'hi', signal: shared.signal }),
    );
    const results = await Promise.all(handles.map((handle) => handle.result()));

    expect(results.every((result) => result.status === 'completed')).toBe(true);
    expect(Math.max(...seen)).toBe(1);
    expect(abortListeners(shared.signal)).toBe(0);
    expect(maxListenerWarnings()).toEqual([]);
  });

  it('10,000 MCP calls sharing one signal leave no listener on it', async () => {
    const server = await faulty();
    const tools = client(server.url);
    const shared = new AbortController();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < 10_000) {
        next++;
        const output = await tools.callTool('echo', {}, { signal: shared.signal });
        expect(output.isError).toBeUndefined();
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));

    expect(server.calls).toHaveLength(10_000);
    expect(abortListeners(shared.signal)).toBe(0);
    expect(maxListenerWarnings()).toEqual([]);
  }, 60_000);
});
