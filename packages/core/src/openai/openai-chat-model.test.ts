import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Item } from '../vocabulary/items.ts';
import type { Model, ModelEvent, ModelRequest, ModelToolDefinition } from '../model/model.ts';
import { scriptFromReplies } from '@switchboard/fixtures';
import type { ScriptedReply } from '@switchboard/fixtures';
import { startScriptedModelServer } from '@switchboard/fixtures';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { openaiChatModel } from './openai-chat-model.ts';
import type { OpenAIChatModelOptions } from './openai-chat-model.ts';

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  replies: ScriptedReply[],
  options: Partial<OpenAIChatModelOptions> = {},
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  servers.push(server);
  const model = openaiChatModel({
    model: 'scripted',
    apiKey: 'test-key',
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    ...options,
  });
  return { server, model };
}

const hello: ModelRequest = {
  instructions: 'Be brief.',
  items: [{ type: 'message', role: 'user', content: 'hi' }],
  tools: [],
};

const addTool: ModelToolDefinition = {
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a'],
  },
};

async function collect(
  model: Model,
  request: ModelRequest,
  signal = new AbortController().signal,
): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of model.stream(request, { signal })) events.push(event);
  return events;
}

async function failure(
  model: Model,
  request: ModelRequest,
  events: ModelEvent[] = [],
  signal = new AbortController().signal,
): Promise<SwitchboardError> {
  try {
    for await (const event of model.stream(request, { signal })) events.push(event);
  } catch (error) {
    expect(error).toBeInstanceOf(SwitchboardError);
    return error as SwitchboardError;
  }
  throw new Error('expected the stream to fail');
}

function text(events: readonly ModelEvent[], type: 'text.delta' | 'reasoning.delta'): string {
  return events.map((event) => (event.type === type ? event.delta : '')).join('');
}

describe('openaiChatModel', () => {
  it('streams text, then done with usage normalised (cached and reasoning tokens)', async () => {
    const { server, model } = await serve([
      {
        text: 'Hello there, friend.',
        usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 40, reasoningTokens: 5 },
      },
    ]);
    const events = await collect(model, hello);

    expect(events.filter((event) => event.type === 'text.delta').length).toBeGreaterThan(1);
    expect(text(events, 'text.delta')).toBe('Hello there, friend.');
    expect(events.at(-1)).toEqual({
      type: 'done',
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40, reasoningTokens: 5 },
    });
    expect(model.provider).toBe('openai-chat');
    expect(server.requests[0]?.format).toBe('chat-completions');
    expect(server.requests[0]?.body).toMatchObject({
      model: 'scripted',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('streams reasoning_content as reasoning before the text', async () => {
    const { model } = await serve([{ reasoning: 'Let me think.', text: 'Done.' }]);
    const events = await collect(model, hello);
    expect(text(events, 'reasoning.delta')).toBe('Let me think.');
    const firstReasoning = events.findIndex((event) => event.type === 'reasoning.delta');
    const firstText = events.findIndex((event) => event.type === 'text.delta');
    expect(firstReasoning).toBeLessThan(firstText);
  });

  it('round-trips a tool call: tool.call events, then the call and its output in the next body', async () => {
    const { server, model } = await serve([
      { text: 'Adding.', toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'It is 5.' },
    ]);
    const first = await collect(model, { ...hello, tools: [addTool] });
    expect(first.filter((event) => event.type === 'tool.call')).toEqual([
      { type: 'tool.call', callId: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' },
    ]);
    expect(server.requests[0]?.body['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'add',
          description: 'Adds two numbers.',
          parameters: addTool.inputSchema,
        },
      },
    ]);

    const items: Item[] = [
      ...hello.items,
      { type: 'message', role: 'assistant', content: 'Adding.' },
      { type: 'function_call', callId: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' },
      {
        type: 'function_call_output',
        callId: 'call_1',
        output: { text: 'overflow', isError: true },
      },
    ];
    const second = await collect(model, { ...hello, items, tools: [addTool] });
    expect(text(second, 'text.delta')).toBe('It is 5.');
    expect(server.requests[1]?.body['messages']).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'Adding.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Error: overflow' },
    ]);
  });

  it('passes tool-call arguments that are not valid JSON through raw', async () => {
    const { model } = await serve([
      { toolCalls: [{ id: 'call_bad', name: 'add', arguments: '{"a": 2, "b": ' }] },
    ]);
    const events = await collect(model, { ...hello, tools: [addTool] });
    expect(events.find((event) => event.type === 'tool.call')).toEqual({
      type: 'tool.call',
      callId: 'call_bad',
      name: 'add',
      arguments: '{"a": 2, "b": ',
    });
    expect(events.at(-1)?.type).toBe('done');
  });

  it('turns a 401 into model_error with status 401 and a message about the key', async () => {
    const { model } = await serve([{ status: 401, error: 'Incorrect API key provided.' }]);
    const error = await failure(model, hello);
    expect(error.code).toBe('model_error');
    expect(error.details).toEqual({ status: 401 });
    expect(error.message).toContain('401');
    expect(error.message).toContain('Incorrect API key provided.');
    expect(error.message).toMatch(/API key/);
  });

  it('retries a 429 honouring retry-after, then fails with status 429 after maxRetries', async () => {
    const { server, model } = await serve(
      [{ status: 429, error: 'Slow down.', headers: { 'retry-after': '0' } }],
      { maxRetries: 2 },
    );
    const startedAt = Date.now();
    const error = await failure(model, hello);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe('model_error');
    expect(error.details).toEqual({ status: 429, retryAfterMs: 0 });
    expect(error.message).toContain('Slow down.');
  });

  it('turns a 500 into model_error with status 500', async () => {
    const { model } = await serve([{ status: 500, error: 'The server had an error.' }]);
    const error = await failure(model, hello);
    expect(error).toMatchObject({ code: 'model_error', details: { status: 500 } });
    expect(error.message).toContain('500');
  });

  it('fails with model_error when the stream is cut mid-answer, never a partial success', async () => {
    const { model } = await serve([
      {
        text: 'one two three four five',
        toolCalls: [{ name: 'add', arguments: {} }],
        cutAfterChunks: 3,
      },
    ]);
    const events: ModelEvent[] = [];
    const error = await failure(model, { ...hello, tools: [addTool] }, events);
    expect(error.code).toBe('model_error');
    expect(error.message).toMatch(/stream ended before the answer was complete/);
    expect(text(events, 'text.delta')).toBe('one two ');
    expect(events.some((event) => event.type === 'tool.call' || event.type === 'done')).toBe(false);
  });

  it('ends with aborted when the signal aborts mid-stream, and at once when already aborted', async () => {
    const { model } = await serve([{ text: 'one two three four five six', delayMs: 40 }]);
    const controller = new AbortController();
    const events: ModelEvent[] = [];
    const pending = failure(model, hello, events, controller.signal);
    while (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await pending;
    expect(error.code).toBe('aborted');
    expect(events.some((event) => event.type === 'done')).toBe(false);

    const early = await failure(model, hello, [], AbortSignal.abort());
    expect(early.code).toBe('aborted');
  });

  it('with strict: sends a convertible tool strict and another non-strict with one warning', async () => {
    const warnings: string[] = [];
    const lookup: ModelToolDefinition = {
      name: 'lookup',
      description: 'Looks up a key.',
      inputSchema: {
        type: 'object',
        properties: { filters: { type: 'object', additionalProperties: { type: 'string' } } },
      },
    };
    const { server, model } = await serve(
      [{ toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1,"b":null}' }] }],
      { strict: true, onWarning: (message) => warnings.push(message) },
    );
    const request = { ...hello, tools: [addTool, lookup] };
    const events = await collect(model, request);
    await collect(model, request);

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"lookup"');
    expect(server.requests[1]?.body['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'add',
          description: 'Adds two numbers.',
          parameters: {
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: ['number', 'null'] } },
            required: ['a', 'b'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Looks up a key.',
          parameters: lookup.inputSchema,
        },
      },
    ]);
    // The null the strict schema forced for the optional `b` is dropped again for the tool.
    expect(events.find((event) => event.type === 'tool.call')).toMatchObject({
      arguments: '{"a":1}',
    });
  });
});
