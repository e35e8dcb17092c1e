import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startStallingModelServer,
  type ModelStall,
  type StallingModelServer,
} from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { anthropicModel } from '../anthropic/anthropic-model.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { openaiResponsesModel } from '../openai/openai-responses-model.ts';
import type { Model, ModelRequest } from './model.ts';
import type { ModelTimeouts } from './model-request-clock.ts';

const servers: StallingModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function stallingServer(stall: ModelStall): Promise<StallingModelServer> {
  const server = await startStallingModelServer({ stall });
  servers.push(server);
  return server;
}

/** Every adapter, with the SDK's default retries (2) left on: a stall must not be retried. */
const adapters: Record<string, (url: string, timeouts: ModelTimeouts) => Model> = {
  openaiChatModel: (url, timeouts) =>
    openaiChatModel({ model: 'stalling', apiKey: 'x', baseURL: `${url}/v1`, ...timeouts }),
  openaiResponsesModel: (url, timeouts) =>
    openaiResponsesModel({ model: 'stalling', apiKey: 'x', baseURL: `${url}/v1`, ...timeouts }),
  anthropicModel: (url, timeouts) =>
    anthropicModel({ model: 'stalling', apiKey: 'x', baseURL: url, ...timeouts }),
};

const hello: ModelRequest = {
  items: [{ type: 'message', role: 'user', content: 'hi' }],
  tools: [],
};

async function streamFailure(model: Model, signal: AbortSignal): Promise<SwitchboardError> {
  try {
    for await (const event of model.stream(hello, { signal })) void event;
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw error;
  }
  throw new Error('the stream ended without an error');
}

describe('model idle and request timeouts', () => {
  for (const [name, create] of Object.entries(adapters)) {
    for (const stall of ['before-headers', 'after-headers', 'mid-stream'] as const) {
      it(`${name}: a stream that stalls ${stall} fails with timeout after idleTimeoutMs, once`, async () => {
        const server = await stallingServer(stall);
        const model = create(server.url, { idleTimeoutMs: 250 });
        const outer = new AbortController();
        const started = Date.now();
        const error = await streamFailure(model, outer.signal);
        const elapsed = Date.now() - started;
        expect(error.code).toBe('timeout');
        expect(error.details).toMatchObject({ which: 'idle', timeoutMs: 250 });
        expect(error.message).toMatch(/250 ms/);
        expect(elapsed).toBeGreaterThanOrEqual(200);
        expect(elapsed).toBeLessThan(2_000);
        // Not multiplied by the SDK's retries: one request reached the server.
        expect(server.requestCount).toBe(1);
        // The caller's signal keeps no listener of the finished request.
        expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
      });
    }

    it(`${name}: requestTimeoutMs caps the whole call even while events keep the idle clock happy`, async () => {
      const server = await stallingServer('mid-stream');
      const model = create(server.url, { idleTimeoutMs: 10_000, requestTimeoutMs: 300 });
      const error = await streamFailure(model, new AbortController().signal);
      expect(error.code).toBe('timeout');
      expect(error.details).toMatchObject({ which: 'request', timeoutMs: 300 });
      expect(server.requestCount).toBe(1);
    });
  }

  it('a stop by the caller is still `aborted`, not `timeout`', async () => {
    const server = await stallingServer('mid-stream');
    const model = openaiChatModel({
      model: 'stalling',
      apiKey: 'x',
      baseURL: `${server.url}/v1`,
      idleTimeoutMs: 5_000,
    });
    const outer = new AbortController();
    setTimeout(() => outer.abort(), 100);
    const error = await streamFailure(model, outer.signal);
    expect(error.code).toBe('aborted');
  });

  it('rejects a timeout that is not a positive number of ms', () => {
    expect(() => openaiChatModel({ model: 'm', idleTimeoutMs: 0 })).toThrowError(
      expect.objectContaining({ code: 'invalid_input' }) as Error,
    );
    expect(() => anthropicModel({ model: 'm', apiKey: 'x', requestTimeoutMs: -1 })).toThrowError(
      /requestTimeoutMs/,
    );
  });

  it('an agent run whose model stream stalls mid-stream ends with run.failed (timeout)', async () => {
    const server = await stallingServer('mid-stream');
    const agent = new Agent({
      name: 'stalling',
      model: openaiChatModel({
        model: 'stalling',
        apiKey: 'x',
        baseURL: `${server.url}/v1`,
        idleTimeoutMs: 250,
      }),
    });
    const handle = agent.execute({ messages: 'hi' });
    const chunks = [];
    for await (const chunk of handle.chunks) chunks.push(chunk);
    const result = await handle.result();
    expect(result.status).toBe('failed');
    const failed = chunks.find((chunk) => chunk.type === 'run.failed');
    expect(failed?.type === 'run.failed' && isSwitchboardError(failed.error, 'timeout')).toBe(true);
    // What the user already saw stays in history.
    expect(result.output).toContainEqual({ type: 'message', role: 'assistant', content: 'Hel' });
  });
});
