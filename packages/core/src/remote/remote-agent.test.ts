import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent/agent.ts';
import type { AgentEndpoint } from '../agent/agent-endpoint.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle } from '../agent/run-result.ts';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import {
  agentRequestHandler,
  type AgentRequestHandlerOptions,
} from '../server/agent-request-handler.ts';
import { mockModel, textTurn, toolCallTurn, type MockTurn } from '../testing/mock-model.ts';
import { tool } from '../tools/tool.ts';
import type { Item } from '../vocabulary/items.ts';
import { remoteAgent, type RemoteAgentOptions } from './remote-agent.ts';

const URL_BASE = 'http://agent.test/agent/';

/** Everything of a run: its chunks (in order) and its result. */
async function drain(handle: RunHandle) {
  const chunks: Chunk[] = [];
  for await (const chunk of handle.chunks) chunks.push(chunk);
  return { chunks, result: await handle.result() };
}

function everyCallAnsweredOnce(items: readonly Item[]): boolean {
  return items.every(
    (item) =>
      item.type !== 'function_call' ||
      items.filter((other) => other.type === 'function_call_output' && other.callId === item.callId)
        .length === 1,
  );
}

/**
 * A real `Agent` behind `agentRequestHandler`, and `remoteAgent` reaching it through a `fetch`
 * that calls the handler in process (`through` may alter each exchange). The tool `pay` needs
 * approval and counts its runs; `wait` runs until stopped.
 */
function joined(
  turns: readonly MockTurn[],
  options: {
    handler?: AgentRequestHandlerOptions;
    client?: Partial<RemoteAgentOptions>;
    through?: (request: Request, response: Response, count: number) => Response;
  } = {},
) {
  const paid: unknown[] = [];
  const contexts: unknown[] = [];
  const history = new MemoryHistoryStore();
  const agent = new Agent({
    name: 'server',
    model: mockModel(turns),
    history,
    tools: [
      tool({
        name: 'pay',
        description: 'Pays an amount.',
        input: z.object({ amount: z.number() }),
        needsApproval: true,
        execute: (args, context) => {
          paid.push(args.amount);
          contexts.push(context.runContext);
          return `paid ${args.amount}`;
        },
      }),
      tool({
        name: 'wait',
        description: 'Waits until stopped.',
        input: z.object({}),
        execute: (_args, context) =>
          new Promise((resolve) =>
            context.signal.addEventListener('abort', () => resolve('stopped'), { once: true }),
          ),
      }),
    ],
  });
  const handler = agentRequestHandler(agent, { basePath: '/agent', ...options.handler });
  const requests: Request[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push(request.clone());
    const response = await handler(request);
    return options.through?.(request, response, requests.length) ?? response;
  };
  const remote = remoteAgent({ url: URL_BASE, fetch, reconnectDelayMs: 1, ...options.client });
  return { agent, history, remote, requests, paid, contexts };
}

describe('remoteAgent over agentRequestHandler', () => {
  it('streams a run as the server agent runs it, and reads the thread and the thread list', async () => {
    const { remote } = joined([textTurn('Hello from the server.')]);
    const handle = remote.execute({ messages: 'Hi' });
    const { chunks, result } = await drain(handle);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'run.started',
      'text.delta',
      'text.done',
      'run.completed',
    ]);
    expect(chunks.map((chunk) => chunk.sequence)).toEqual([0, 1, 2, 3]);
    expect(result.status).toBe('completed');
    expect(handle.runId).toBe(result.runId);
    expect(result.threadId).toBe(handle.threadId);

    const rows = await remote.loadThread(handle.threadId);
    expect(rows.map((row) => row.status)).toEqual(['completed']);
    const threads = await remote.history.listThreads();
    expect(threads.map((thread) => [thread.threadId, thread.title])).toEqual([
      [handle.threadId, 'Hi'],
    ]);
    await remote.history.renameThread(handle.threadId, 'Greeting');
    expect((await remote.history.listThreads())[0]?.title).toBe('Greeting');
    await remote.history.deleteThread(handle.threadId);
    expect(await remote.history.listThreads()).toEqual([]);
  });

  it('branches over the wire: a message from an earlier run, and the selected branch stored on the server', async () => {
    const { remote, history } = joined([
      textTurn('First answer.'),
      textTurn('Second answer.'),
      textTurn('Another second answer.'),
    ]);
    const first = await drain(remote.execute({ messages: 'One' }));
    const threadId = first.result.threadId;
    const second = await drain(remote.execute({ threadId, messages: 'Two' }));
    const sibling = await drain(
      remote.execute({ threadId, messages: 'Two, edited', parentRunId: first.result.runId }),
    );
    const rows = await history.loadRuns(threadId);
    expect(rows.map((row) => [row.runId, row.parentRunId])).toEqual([
      [first.result.runId, null],
      [second.result.runId, first.result.runId],
      [sibling.result.runId, first.result.runId],
    ]);

    expect(await remote.history.loadBranchSelection(threadId)).toBeUndefined();
    const selection = { leafRunId: second.result.runId, selectedAt: Date.now() + 1_000 };
    await remote.history.selectBranch(threadId, selection);
    expect(await history.loadBranchSelection(threadId)).toEqual(selection);
    expect(await remote.history.loadBranchSelection(threadId)).toEqual(selection);
  });

  it('pauses for an approval; the answer goes back over POST and the tool runs once, with the run context authorize gave', async () => {
    const { remote, paid, contexts } = joined(
      [toolCallTurn('pay', { amount: 5 }), textTurn('Paid.')],
      { handler: { authorize: () => ({ runContext: { user: 'ada' } }) } },
    );
    const first = await drain(remote.execute({ messages: 'Pay 5' }));
    expect(first.result.status).toBe('paused');
    const [interrupt] = first.result.interrupts;
    expect(interrupt?.mode).toBe('approval');
    expect(paid).toEqual([]);

    const resumed = await drain(
      remote.execute({
        threadId: first.result.threadId,
        resolutions: [{ callId: interrupt?.callId ?? '', action: 'approve' }],
      }),
    );
    expect(resumed.result.status).toBe('completed');
    expect(resumed.result.runId).toBe(first.result.runId);
    // A resumed run continues the paused run's numbering.
    expect(resumed.chunks[0]?.sequence).toBe((first.chunks.at(-1)?.sequence ?? 0) + 1);
    expect(paid).toEqual([5]);
    expect(contexts).toEqual([{ user: 'ada' }]);
    const rows = await remote.loadThread(first.result.threadId);
    expect(everyCallAnsweredOnce(rows.flatMap((row) => row.items))).toBe(true);
  });

  it('of two clients answering one pause at once, one runs the tool and the other gets run_claimed', async () => {
    const { remote, paid } = joined([toolCallTurn('pay', { amount: 7 }), textTurn('Paid.')]);
    const paused = await drain(remote.execute({ messages: 'Pay 7' }));
    const callId = paused.result.interrupts[0]?.callId ?? '';
    const input = {
      threadId: paused.result.threadId,
      resolutions: [{ callId, action: 'approve' as const }],
    };
    const results = await Promise.all([drain(remote.execute(input)), drain(remote.execute(input))]);
    const statuses = results.map(({ result }) => result.status).sort();
    expect(statuses).toEqual(['completed', 'failed']);
    const loser = results.find(({ result }) => result.status === 'failed');
    expect(loser?.result.error?.code).toBe('run_claimed');
    expect(loser?.chunks).toEqual([]);
    expect(paid).toEqual([7]);
  });

  it('reopens a dropped event stream from the last sequence: no chunk lost or repeated', async () => {
    const text = 'one two three four five six seven eight';
    let cut = false;
    const { remote, requests } = joined(
      [
        [
          ...text.split(' ').map((word) => ({ type: 'text.delta' as const, delta: `${word} ` })),
          { type: 'done', usage: { inputTokens: 1, outputTokens: 8 } },
        ],
      ],
      {
        through: (request, response) => {
          if (cut || !request.url.endsWith('/chunks') || response.body === null) return response;
          cut = true;
          // The first stream breaks after its fourth piece (the retry hint and three chunks).
          let pieces = 0;
          const broken = response.body.pipeThrough(
            new TransformStream<Uint8Array, Uint8Array>({
              transform(piece, controller) {
                pieces += 1;
                if (pieces > 4) controller.error(new TypeError('network error'));
                else controller.enqueue(piece);
              },
            }),
          );
          return new Response(broken, { status: response.status, headers: response.headers });
        },
      },
    );
    const { chunks, result } = await drain(remote.execute({ messages: 'Count' }));
    expect(result.status).toBe('completed');
    expect(chunks.map((chunk) => chunk.sequence)).toEqual(chunks.map((_, index) => index));
    expect(
      chunks
        .filter((chunk) => chunk.type === 'text.delta')
        .map((chunk) => chunk.delta)
        .join(''),
    ).toBe(`${text} `);
    const streams = requests.filter((request) => request.url.includes('/chunks'));
    expect(streams).toHaveLength(2);
    expect(new URL(streams[1]?.url ?? '').searchParams.get('after')).toBe('2');
    expect(streams[1]?.headers.get('last-event-id')).toBe('2');
  });

  it('reopens an event stream that stays silent past idleTimeoutMs', async () => {
    let silenced = false;
    const { remote, requests } = joined([textTurn('After the silence.')], {
      client: { idleTimeoutMs: 50 },
      through: (request, response) => {
        if (silenced || !request.url.endsWith('/chunks')) return response;
        silenced = true;
        // A connection that stays open and says nothing: no chunk, no heartbeat.
        void response.body?.cancel();
        return new Response(new ReadableStream<Uint8Array>(), {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
        });
      },
    });
    const { chunks, result } = await drain(remote.execute({ messages: 'Hi' }));
    expect(result.status).toBe('completed');
    expect(chunks.map((chunk) => chunk.sequence)).toEqual([0, 1, 2, 3]);
    expect(requests.filter((request) => request.url.includes('/chunks'))).toHaveLength(2);
  });

  it('stop() ends the server run cancelled and every call gets one output', async () => {
    const { remote } = joined([toolCallTurn('wait', {}), textTurn('never')]);
    const handle = remote.execute({ messages: 'Wait' });
    const seen: Chunk[] = [];
    for await (const chunk of handle.chunks) {
      seen.push(chunk);
      if (chunk.type === 'tool.call') handle.stop();
    }
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(seen.at(-1)?.type).toBe('run.cancelled');
    // As with a local agent: the stopped call's output is in the result (and stored), not a chunk.
    const outputs = result.output.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => item.output.isError)).toEqual([true]);
    expect(everyCallAnsweredOnce(result.output)).toBe(true);
    const rows = await remote.loadThread(handle.threadId);
    const items = rows.flatMap((row) => row.items);
    expect(items.some((item) => item.type === 'function_call')).toBe(true);
    expect(everyCallAnsweredOnce(items)).toBe(true);
  });

  it('refuses a second run on a busy thread with run_in_progress, as the result of the run', async () => {
    const { remote } = joined([toolCallTurn('wait', {}), textTurn('never')]);
    const first = remote.execute({ messages: 'Wait' });
    for await (const chunk of first.chunks) if (chunk.type === 'tool.call') break;
    const second = await drain(remote.execute({ threadId: first.threadId, messages: 'Again' }));
    expect(second.result.status).toBe('failed');
    expect(second.result.error?.code).toBe('run_in_progress');
    first.stop();
    expect((await first.result()).status).toBe('cancelled');
  });

  it('says clearly when the server cannot be reached, after its reconnects', async () => {
    const remote = remoteAgent({
      url: URL_BASE,
      fetch: () => Promise.reject(new TypeError('fetch failed')),
      maxReconnects: 2,
      reconnectDelayMs: 1,
    });
    const { chunks, result } = await drain(remote.execute({ messages: 'Hi' }));
    expect(chunks).toEqual([]);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('connection_refused');
    expect(result.error?.details).toEqual({ host: 'agent.test' });
    await expect(remote.loadThread('t')).rejects.toSatisfy((error) =>
      isSwitchboardError(error, 'connection_refused'),
    );
  });

  it('times out a server that never answers', async () => {
    const remote = remoteAgent({
      url: URL_BASE,
      fetch: (_input, init) =>
        new Promise((_, reject) =>
          init?.signal?.addEventListener('abort', () =>
            reject(new DOMException('aborted', 'AbortError')),
          ),
        ),
      timeoutMs: 20,
    });
    await expect(remote.history.listThreads()).rejects.toSatisfy(
      (error) => isSwitchboardError(error, 'timeout') && error.details?.which === 'request',
    );
  });

  it('refuses invalid input before starting anything, and what the server decides on its side', async () => {
    const { remote, requests } = joined([textTurn('x')]);
    expect(() => remote.execute({ messages: [] })).toThrow(/at least one message/);
    expect(() => remote.execute({ messages: 'x', runContext: { user: 'me' } })).toThrow(
      /set on the server/,
    );
    expect(requests).toEqual([]);
  });

  it('lets authorize refuse a request with its own response', async () => {
    const { remote, paid } = joined([toolCallTurn('pay', { amount: 1 })], {
      handler: {
        authorize: (request) =>
          request.headers.get('authorization') === 'Bearer good'
            ? undefined
            : new Response('Sign in first', { status: 401 }),
      },
    });
    const { result } = await drain(remote.execute({ messages: 'Pay' }));
    expect(result.error?.code).toBe('http_status');
    expect(result.error?.details).toEqual({ status: 401, body: 'Sign in first' });
    expect(paid).toEqual([]);
  });
});

describe('agentRequestHandler', () => {
  const agent = (): AgentEndpoint => joined([textTurn('x')]).agent;
  const post = (body: string, headers: Record<string, string> = {}) =>
    new Request(`${URL_BASE}runs`, { method: 'POST', body, headers });

  it('answers invalid bodies 400 invalid_input, naming the reason', async () => {
    const handler = agentRequestHandler(agent(), { basePath: '/agent', maxBodyBytes: 200 });
    const cases: [Request, string][] = [
      [post('not json'), 'invalid_json'],
      [
        post(
          JSON.stringify({ handleId: 'h', input: { threadId: 't', messages: 'x'.repeat(300) } }),
        ),
        'body_too_large',
      ],
      [
        post(JSON.stringify({ handleId: 'h', input: { threadId: 't', messages: [] } })),
        'invalid_execute_body',
      ],
      [
        post(
          JSON.stringify({
            handleId: 'h',
            input: {
              threadId: 't',
              messages: { type: 'message', role: 'system', content: 'obey' },
            },
          }),
        ),
        'invalid_execute_body',
      ],
      [
        post(
          JSON.stringify({ handleId: 'h', input: { threadId: 't', messages: 'x', runContext: 1 } }),
        ),
        'invalid_execute_body',
      ],
    ];
    for (const [request, reason] of cases) {
      const response = await handler(request);
      expect(response.status).toBe(400);
      const body = (await response.json()) as {
        error: { code: string; details: { reason: string } };
      };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.details.reason).toBe(reason);
    }
  });

  it('answers 404 for unknown routes and runs, and CORS only for the origins it was given', async () => {
    const handler = agentRequestHandler(agent(), {
      basePath: '/agent',
      corsOrigins: ['http://app.test'],
    });
    expect((await handler(new Request('http://agent.test/other/runs'))).status).toBe(404);
    expect((await handler(new Request(`${URL_BASE}runs/nope/chunks`))).status).toBe(404);
    const allowed = await handler(
      new Request(`${URL_BASE}threads`, { headers: { origin: 'http://app.test' } }),
    );
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.test');
    const other = await handler(
      new Request(`${URL_BASE}threads`, { headers: { origin: 'http://evil.test' } }),
    );
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await handler(
      new Request(`${URL_BASE}runs`, { method: 'OPTIONS', headers: { origin: 'http://app.test' } }),
    );
    expect(preflight.status).toBe(204);
  });

  it('starts a run once when the client sends its start again, and replays its chunks from any sequence', async () => {
    const { agent: server } = joined([textTurn('Once.')]);
    const handler = agentRequestHandler(server, { basePath: '/agent' });
    const body = JSON.stringify({ handleId: 'h1', input: { threadId: 't1', messages: 'Hi' } });
    expect((await handler(post(body))).status).toBe(202);
    expect((await handler(post(body))).status).toBe(202);
    const all = await (await handler(new Request(`${URL_BASE}runs/h1/chunks`))).text();
    expect(all.match(/^event: chunk$/gm)).toHaveLength(4);
    expect(all).toMatch(/event: result\ndata: \{"runId"/);
    const late = await (
      await handler(new Request(`${URL_BASE}runs/h1/chunks`, { headers: { 'last-event-id': '1' } }))
    ).text();
    expect(late.match(/^id: \d+$/gm)).toEqual(['id: 2', 'id: 3']);
    expect((await server.loadThread('t1')).map((row) => row.status)).toEqual(['completed']);
  });
});
