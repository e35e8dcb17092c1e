import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Item } from '../vocabulary/items.ts';
import type { Model, ModelEvent, ModelRequest, ModelToolDefinition } from '../model/model.ts';
import { scriptFromReplies } from '@switchboard/fixtures';
import type { ScriptedReply } from '@switchboard/fixtures';
import { startScriptedModelServer } from '@switchboard/fixtures';
import type { ScriptedModelServer } from '@switchboard/fixtures';
import { anthropicModel } from './anthropic-model.ts';
import type { AnthropicModelOptions } from './anthropic-model.ts';

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  replies: ScriptedReply[],
  options: Partial<AnthropicModelOptions> = {},
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  servers.push(server);
  const model = anthropicModel({
    model: 'scripted',
    apiKey: 'test-key',
    baseURL: server.url,
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

describe('anthropicModel', () => {
  it('streams text, then done with usage normalised (cache reads counted as input)', async () => {
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
    expect(model.provider).toBe('anthropic');
    expect(server.requests[0]?.format).toBe('anthropic-messages');
    expect(server.requests[0]?.body).toEqual({
      model: 'scripted',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: true,
    });
  });

  it('sends maxTokens and requestOptions', async () => {
    const { server, model } = await serve([{ text: 'ok' }], {
      maxTokens: 512,
      requestOptions: { temperature: 0 },
    });
    await collect(model, hello);
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 512, temperature: 0 });
  });

  it('streams thinking deltas as reasoning before the text', async () => {
    const { model } = await serve([{ reasoning: 'Let me think.', text: 'Done.' }]);
    const events = await collect(model, hello);
    expect(text(events, 'reasoning.delta')).toBe('Let me think.');
    const firstReasoning = events.findIndex((event) => event.type === 'reasoning.delta');
    const firstText = events.findIndex((event) => event.type === 'text.delta');
    expect(firstReasoning).toBeLessThan(firstText);
  });

  it('round-trips tool calls: tool_use input from input_json_delta, then grouped tool_result blocks', async () => {
    const { server, model } = await serve([
      {
        text: 'Adding.',
        toolCalls: [
          { id: 'toolu_1', name: 'add', arguments: { a: 2, b: 3 } },
          { id: 'toolu_2', name: 'add', arguments: { a: 1 } },
        ],
      },
      { text: 'Done.' },
    ]);
    const first = await collect(model, { ...hello, tools: [addTool] });
    expect(first.filter((event) => event.type === 'tool.call')).toEqual([
      { type: 'tool.call', callId: 'toolu_1', name: 'add', arguments: '{"a":2,"b":3}' },
      { type: 'tool.call', callId: 'toolu_2', name: 'add', arguments: '{"a":1}' },
    ]);
    expect(server.requests[0]?.body['tools']).toEqual([
      { name: 'add', description: 'Adds two numbers.', input_schema: addTool.inputSchema },
    ]);

    const items: Item[] = [
      ...hello.items,
      { type: 'message', role: 'assistant', content: 'Adding.' },
      { type: 'function_call', callId: 'toolu_1', name: 'add', arguments: '{"a":2,"b":3}' },
      { type: 'function_call', callId: 'toolu_2', name: 'add', arguments: '{"a":1}' },
      { type: 'function_call_output', callId: 'toolu_1', output: { text: '5' } },
      {
        type: 'function_call_output',
        callId: 'toolu_2',
        output: { text: 'b is missing', isError: true },
      },
    ];
    await collect(model, { ...hello, items, tools: [addTool] });
    expect(server.requests[1]?.body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Adding.' },
          { type: 'tool_use', id: 'toolu_1', name: 'add', input: { a: 2, b: 3 } },
          { type: 'tool_use', id: 'toolu_2', name: 'add', input: { a: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '5' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'b is missing', is_error: true },
        ],
      },
    ]);
    // The script saw the same conversation, normalised: two tool messages at the end.
    expect(server.requests[1]?.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'toolu_1', content: '5' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'b is missing' },
    ]);
  });

  it('passes tool input that is not valid JSON through raw', async () => {
    const { model } = await serve([
      { toolCalls: [{ id: 'toolu_bad', name: 'add', arguments: '{"a": 2, "b": ' }] },
    ]);
    const events = await collect(model, { ...hello, tools: [addTool] });
    expect(events.find((event) => event.type === 'tool.call')).toEqual({
      type: 'tool.call',
      callId: 'toolu_bad',
      name: 'add',
      arguments: '{"a": 2, "b": ',
    });
    expect(events.at(-1)?.type).toBe('done');
  });

  it('turns a 401 into model_error with status 401 and the provider message', async () => {
    const { model } = await serve([{ status: 401, error: 'invalid x-api-key' }]);
    const error = await failure(model, hello);
    expect(error.code).toBe('model_error');
    expect(error.details).toEqual({ status: 401 });
    expect(error.message).toContain('401');
    expect(error.message).toContain('invalid x-api-key');
    expect(error.message).toMatch(/API key/);
  });

  it('retries a 429 honouring retry-after, then fails with status 429 after maxRetries', async () => {
    // The Anthropic SDK only honours a positive retry-after (0 means "use the backoff").
    const { server, model } = await serve(
      [{ status: 429, error: 'Rate limited.', headers: { 'retry-after': '0.001' } }],
      { maxRetries: 2 },
    );
    const startedAt = Date.now();
    const error = await failure(model, hello);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(3);
    expect(error).toMatchObject({ code: 'model_error', details: { status: 429 } });
    expect(error.message).toContain('Rate limited.');
  });

  it.each([500, 529])('turns a %i into model_error with that status', async (status) => {
    const { model } = await serve([{ status, error: 'Overloaded' }]);
    const error = await failure(model, hello);
    expect(error).toMatchObject({ code: 'model_error', details: { status } });
    expect(error.message).toContain(String(status));
  });

  it('fails with model_error when the stream is cut mid-answer, never a partial success', async () => {
    const { model } = await serve([
      {
        text: 'one two three four five',
        toolCalls: [{ name: 'add', arguments: {} }],
        // message_start, ping, content_block_start, two text deltas.
        cutAfterChunks: 5,
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
});
