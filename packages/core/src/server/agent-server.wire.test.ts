import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.ts';
import {
  closeScriptedModelServers,
  expectEveryCallAnsweredOnce,
  scripted,
} from '../agent/agent-test-support.ts';
import { destructiveToolsNeedApproval } from '../agent/approval-policies.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle } from '../agent/run-result.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { remoteAgent } from '../remote/remote-agent.ts';
import { agentRequestHandler } from './agent-request-handler.ts';

/**
 * The browser side (`remoteAgent`) against a real `Agent` served by `agentRequestHandler` over
 * real HTTP on 127.0.0.1 (node:http through `@remix-run/node-fetch-server`), with the scripted
 * model server and the demo MCP server (2026-07-28 and 2025 endpoints).
 */
let demo: DemoServer;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 2 });
});
afterAll(async () => {
  await demo.close();
});
afterEach(async () => {
  await closeScriptedModelServers();
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(agent: Agent, options: { heartbeatMs?: number } = {}): Promise<string> {
  const server: Server = createServer(
    createRequestListener(agentRequestHandler(agent, { basePath: '/agent', ...options })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent/`;
}

function demoTools(url: string, name: string): McpServer {
  const server = mcpServer({ url, name });
  closers.push(() => server.close());
  return server;
}

async function drain(handle: RunHandle) {
  const chunks: Chunk[] = [];
  for await (const chunk of handle.chunks) chunks.push(chunk);
  return { chunks, result: await handle.result() };
}

const toolCalls = (demoServer: DemoServer) =>
  demoServer.log.filter((entry) => entry.rpcMethod === 'tools/call').length;

describe.each([
  ['2026-07-28', () => demo.modernUrl],
  ['2025-11-25', () => demo.legacyUrl],
])('a server-run agent over HTTP + SSE (MCP %s)', (_era, urlOf) => {
  it('streams text, pauses for an approval the browser side answers, and runs the tool once', async () => {
    const { model } = await scripted([
      {
        text: 'Deleting it now.',
        toolCalls: [{ id: 'call_del', name: 'delete_file', arguments: { path: '/tmp/x' } }],
      },
      { text: 'Deleted.' },
    ]);
    const agent = new Agent({
      name: 'server',
      model,
      history: new MemoryHistoryStore(),
      mcpServers: [demoTools(urlOf(), 'demo')],
      approvalPolicy: destructiveToolsNeedApproval,
    });
    const remote = remoteAgent({ url: await serve(agent) });
    const before = toolCalls(demo);

    const first = await drain(remote.execute({ messages: 'Delete /tmp/x' }));
    const text = first.chunks.flatMap((chunk) =>
      chunk.type === 'text.delta' ? [chunk.delta] : [],
    );
    expect(text.join('')).toBe('Deleting it now.');
    expect(first.result.status).toBe('paused');
    const interrupt = first.result.interrupts[0];
    expect(interrupt?.mode).toBe('approval');
    expect(toolCalls(demo)).toBe(before);

    // Two answers at once, as from two tabs: the server's claim decides.
    const input = {
      threadId: first.result.threadId,
      resolutions: [{ callId: interrupt?.callId ?? '', action: 'approve' as const }],
    };
    const [a, b] = await Promise.all([drain(remote.execute(input)), drain(remote.execute(input))]);
    const outcomes = [a.result, b.result]
      .map((result) => result.error?.code ?? result.status)
      .sort();
    // `not_paused` when the winner had finished before the loser's request arrived (under load).
    expect([
      ['completed', 'run_claimed'],
      ['completed', 'not_paused'],
    ]).toContainEqual(outcomes);
    expect(toolCalls(demo)).toBe(before + 1);
    const winner = a.result.status === 'completed' ? a : b;
    const output = winner.chunks.find((chunk) => chunk.type === 'tool.result');
    expect(output?.type === 'tool.result' ? output.output.text : '').toMatch(/Deleted \/tmp\/x/);

    const rows = await remote.loadThread(first.result.threadId);
    expectEveryCallAnsweredOnce(rows.flatMap((row) => row.items));
    expect(rows.map((row) => row.status)).toEqual(['completed']);
  });
});

describe('a server-run agent over HTTP + SSE', () => {
  it('resumes a dropped event stream from its sequence, without a duplicate or a lost chunk', async () => {
    const words = Array.from({ length: 30 }, (_, index) => `w${index}`).join(' ');
    const { model } = await scripted([{ text: words }]);
    const agent = new Agent({ name: 'server', model });
    const url = await serve(agent);
    const streams: string[] = [];
    // The first event stream is cut after a few pieces, as a dropped connection would.
    const remote = remoteAgent({
      url,
      reconnectDelayMs: 1,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const address = String(input);
        if (!address.includes('/chunks')) return response;
        streams.push(address);
        if (streams.length > 1 || response.body === null) return response;
        // Passes the stream on up to the middle of its sixth chunk event, then breaks it.
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        const encoder = new TextEncoder();
        let seen = '';
        const cut = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const read = await reader.read();
            if (read.done) return controller.close();
            const previous = seen.length;
            seen += decoder.decode(read.value, { stream: true });
            const events = [...seen.matchAll(/event: chunk\n/g)];
            const sixth = events[5];
            if (sixth === undefined) return controller.enqueue(read.value);
            controller.enqueue(encoder.encode(seen.slice(previous, sixth.index + 20)));
            await reader.cancel();
            controller.error(new TypeError('network error'));
          },
        });
        return new Response(cut, { status: response.status, headers: response.headers });
      },
    });
    const { chunks, result } = await drain(remote.execute({ messages: 'Count' }));
    expect(result.status).toBe('completed');
    expect(chunks.map((chunk) => chunk.sequence)).toEqual(chunks.map((_, index) => index));
    const text = chunks.flatMap((chunk) => (chunk.type === 'text.delta' ? [chunk.delta] : []));
    expect(text.join('')).toBe(words);
    expect(streams).toHaveLength(2);
    // The sixth chunk (sequence 5) was cut in the middle: the stream resumed after the fifth.
    expect(new URL(streams[1] ?? '').searchParams.get('after')).toBe('4');
  });

  it('stop() from the browser side ends the run cancelled and gives every call one output', async () => {
    const { model } = await scripted([
      {
        toolCalls: [
          { id: 'call_slow', name: 'slow_count', arguments: { count: 50, delayMs: 200 } },
        ],
      },
      { text: 'never' },
    ]);
    const agent = new Agent({
      name: 'server',
      model,
      mcpServers: [demoTools(demo.modernUrl, 'demo')],
    });
    const remote = remoteAgent({ url: await serve(agent) });
    const handle = remote.execute({ messages: 'Count slowly' });
    for await (const chunk of handle.chunks) if (chunk.type === 'tool.call') handle.stop();
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expectEveryCallAnsweredOnce(result.output);
    const rows = await remote.loadThread(handle.threadId);
    expect(rows.map((row) => row.status)).toEqual(['cancelled']);
    expectEveryCallAnsweredOnce(rows.flatMap((row) => row.items));
  });

  it('keeps a quiet stream open with heartbeats: one event stream for the whole run', async () => {
    const { model } = await scripted([
      {
        toolCalls: [{ id: 'call_slow', name: 'slow_count', arguments: { count: 2, delayMs: 400 } }],
      },
      { text: 'Counted.' },
    ]);
    const agent = new Agent({
      name: 'server',
      model,
      mcpServers: [demoTools(demo.modernUrl, 'demo')],
    });
    const streams: string[] = [];
    const remote = remoteAgent({
      url: await serve(agent, { heartbeatMs: 50 }),
      idleTimeoutMs: 200,
      fetch: (input, init) => {
        if (String(input).includes('/chunks')) streams.push(String(input));
        return fetch(input, init);
      },
    });
    const { result } = await drain(remote.execute({ messages: 'Count' }));
    expect(result.status).toBe('completed');
    expect(streams).toHaveLength(1);
  });
});
