import { afterEach, describe, expect, it, vi } from 'vitest';
import { startStallingModelServer, type StallingModelServer } from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { anthropicModel } from '../anthropic/anthropic-model.ts';
import { describeError } from '../errors/describe-error.ts';
import type { SwitchboardError } from '../errors/switchboard-error.ts';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { openaiResponsesModel } from '../openai/openai-responses-model.ts';
import type { Model, ModelEvent, ModelRequest } from './model.ts';
import {
  DEFAULT_MODEL_WAITING_NOTICE_MS,
  ModelRequestClock,
  type ModelTimeouts,
} from './model-request-clock.ts';

const servers: StallingModelServer[] = [];

afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Drives `clock.responseStart` by hand: the events it yielded and how it ended. */
function drive<T>(clock: ModelRequestClock, host: string, send: () => Promise<T>) {
  const events: ModelEvent[] = [];
  let outcome: { value: T } | { error: unknown } | undefined;
  const generator = clock.responseStart(host, send);
  const done = (async () => {
    try {
      for (;;) {
        const step = await generator.next();
        if (step.done === true) {
          outcome = { value: step.value };
          return;
        }
        events.push(step.value);
      }
    } catch (error) {
      outcome = { error };
    }
  })();
  return { events, done, outcome: () => outcome };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe('ModelRequestClock.responseStart (the "no response headers yet" clock)', () => {
  it('says nothing when the response starts before waitingNoticeMs', async () => {
    vi.useFakeTimers();
    const clock = new ModelRequestClock(new AbortController().signal, { waitingNoticeMs: 1_000 });
    const response = deferred<string>();
    const run = drive(clock, 'api.example.com', () => response.promise);
    await vi.advanceTimersByTimeAsync(999);
    response.resolve('headers');
    await run.done;
    expect(run.events).toEqual([]);
    expect(run.outcome()).toEqual({ value: 'headers' });
    clock.dispose();
  });

  it('yields one response.waiting after waitingNoticeMs and keeps waiting, unaborted', async () => {
    vi.useFakeTimers();
    const clock = new ModelRequestClock(new AbortController().signal, {
      waitingNoticeMs: 1_000,
      idleTimeoutMs: 60_000,
    });
    const response = deferred<string>();
    const run = drive(clock, 'api.example.com', () => response.promise);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(run.events).toEqual([
      { type: 'response.waiting', host: 'api.example.com', waitedMs: 1_000 },
    ]);
    await vi.advanceTimersByTimeAsync(30_000);
    // Still one notice, still waiting: a slow start is not a failure.
    expect(run.events).toHaveLength(1);
    expect(run.outcome()).toBeUndefined();
    expect(clock.signal.aborted).toBe(false);
    response.resolve('headers');
    await run.done;
    expect(run.outcome()).toEqual({ value: 'headers' });
    clock.dispose();
  });

  it('still ends at the idle limit when the response never starts', async () => {
    vi.useFakeTimers();
    const clock = new ModelRequestClock(new AbortController().signal, {
      waitingNoticeMs: 1_000,
      idleTimeoutMs: 5_000,
    });
    // What an SDK does: its request rejects when the signal it was given aborts.
    const send = () =>
      new Promise<string>((_, reject) => {
        clock.signal.addEventListener('abort', () => reject(clock.signal.reason));
      });
    const run = drive(clock, 'api.example.com', send);
    await vi.advanceTimersByTimeAsync(5_000);
    await run.done;
    expect(run.events.map((event) => event.type)).toEqual(['response.waiting']);
    expect(clock.expired?.code).toBe('timeout');
    clock.dispose();
  });

  it('fails at once, without sending, when the browser is offline', async () => {
    vi.stubGlobal('navigator', { onLine: false });
    const clock = new ModelRequestClock(new AbortController().signal, {});
    const send = vi.fn(() => Promise.resolve('headers'));
    const run = drive(clock, 'api.example.com', send);
    await run.done;
    expect(send).not.toHaveBeenCalled();
    const outcome = run.outcome();
    const error = outcome !== undefined && 'error' in outcome ? outcome.error : undefined;
    expect(isSwitchboardError(error, 'connection_refused')).toBe(true);
    expect((error as SwitchboardError).details).toEqual({
      reason: 'offline',
      host: 'api.example.com',
    });
    // The sentence a UI shows blames the network, not the server.
    const { sentence } = describeError(error, { server: 'demo' });
    expect(sentence).toMatch(/^You are offline/);
    expect(sentence).not.toMatch(/demo|not running|CORS/);
    clock.dispose();
  });

  it('sends when navigator.onLine is true', async () => {
    vi.stubGlobal('navigator', { onLine: true });
    const clock = new ModelRequestClock(new AbortController().signal, {});
    const run = drive(clock, 'api.example.com', () => Promise.resolve('headers'));
    await run.done;
    expect(run.outcome()).toEqual({ value: 'headers' });
    clock.dispose();
  });

  it('defaults to a few seconds and rejects a waitingNoticeMs that is not positive', () => {
    expect(DEFAULT_MODEL_WAITING_NOTICE_MS).toBe(4_000);
    expect(
      () => new ModelRequestClock(new AbortController().signal, { waitingNoticeMs: 0 }),
    ).toThrowError(/waitingNoticeMs/);
  });
});

const hello: ModelRequest = {
  items: [{ type: 'message', role: 'user', content: 'hi' }],
  tools: [],
};

const adapters: Record<string, (url: string, timeouts: ModelTimeouts) => Model> = {
  openaiChatModel: (url, timeouts) =>
    openaiChatModel({ model: 'stalling', apiKey: 'x', baseURL: `${url}/v1`, ...timeouts }),
  openaiResponsesModel: (url, timeouts) =>
    openaiResponsesModel({ model: 'stalling', apiKey: 'x', baseURL: `${url}/v1`, ...timeouts }),
  anthropicModel: (url, timeouts) =>
    anthropicModel({ model: 'stalling', apiKey: 'x', baseURL: url, ...timeouts }),
};

describe('model adapters over real HTTP: a response that does not start', () => {
  for (const [name, create] of Object.entries(adapters)) {
    it(`${name}: yields response.waiting for the host, then ends at its idle limit`, async () => {
      const server = await startStallingModelServer({ stall: 'before-headers' });
      servers.push(server);
      const model = create(server.url, { waitingNoticeMs: 50, idleTimeoutMs: 1_000 });
      const events: ModelEvent[] = [];
      let failure: unknown;
      try {
        for await (const event of model.stream(hello, { signal: new AbortController().signal })) {
          events.push(event);
        }
      } catch (error) {
        failure = error;
      }
      expect(events).toEqual([
        { type: 'response.waiting', host: new URL(server.url).host, waitedMs: 50 },
      ]);
      expect(isSwitchboardError(failure, 'timeout')).toBe(true);
      expect(server.requestCount).toBe(1);
    });
  }

  it('an agent run streams a model.waiting chunk with the model and host', async () => {
    const server = await startStallingModelServer({ stall: 'before-headers' });
    servers.push(server);
    const agent = new Agent({
      name: 'waiting',
      model: openaiChatModel({
        model: 'stalling',
        apiKey: 'x',
        baseURL: `${server.url}/v1`,
        waitingNoticeMs: 50,
        idleTimeoutMs: 1_000,
      }),
      modelRetry: { maxAttempts: 1 },
    });
    const handle = agent.execute({ messages: 'hi' });
    const types: string[] = [];
    let waiting: unknown;
    for await (const chunk of handle.chunks) {
      types.push(chunk.type);
      if (chunk.type === 'model.waiting') waiting = chunk;
    }
    expect(waiting).toMatchObject({
      model: 'openai-chat/stalling',
      host: new URL(server.url).host,
      waitedMs: 50,
    });
    expect(types.indexOf('model.waiting')).toBeLessThan(types.indexOf('run.failed'));
    expect((await handle.result()).status).toBe('failed');
  });
});
