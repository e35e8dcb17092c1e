import OpenAI, { APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultModelScript, scriptFromReplies } from './model-script.ts';
import type { ChatRequest } from './model-script.ts';
import { startScriptedModelServer } from './scripted-model-server.ts';
import type { ScriptedModelServer, ScriptedModelServerOptions } from './scripted-model-server.ts';

const started: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function start(options?: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer(options);
  started.push(server);
  return server;
}

function clientFor(server: ScriptedModelServer): OpenAI {
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 });
}

const getSumTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'everything_get-sum',
    description: 'Adds two numbers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  },
};

interface Collected {
  chunks: ChatCompletionChunk[];
  text: string;
  reasoning: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
}

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<Collected> {
  const collected: Collected = {
    chunks: [],
    text: '',
    reasoning: '',
    toolCalls: [],
    finishReason: null,
  };
  for await (const chunk of stream) {
    collected.chunks.push(chunk);
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & {
      reasoning_content?: string;
    };
    collected.text += delta.content ?? '';
    collected.reasoning += delta.reasoning_content ?? '';
    for (const call of delta.tool_calls ?? []) {
      const entry = (collected.toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id !== undefined) entry.id = call.id;
      if (call.function?.name !== undefined) entry.name = call.function.name;
      entry.arguments += call.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) collected.finishReason = choice.finish_reason;
  }
  return collected;
}

describe('startScriptedModelServer', () => {
  it('listens on 127.0.0.1 and streams text that concatenates to the exact scripted text', async () => {
    const text = '  Hello, world!\nThis  is a\tscripted   reply. ';
    const server = await start({ script: () => ({ text }) });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const stream = await clientFor(server).chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const collected = await collect(stream);

    expect(collected.text).toBe(text);
    expect(collected.finishReason).toBe('stop');
    expect(collected.chunks.length).toBeGreaterThan(4);
    expect(collected.chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const last = collected.chunks.at(-1);
    expect(last?.choices[0]?.delta).toEqual({});
    for (const chunk of collected.chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe('test-model');
      expect(chunk.id).toMatch(/^chatcmpl-/);
    }
  });

  it('streams a get-sum tool call for "what is 2 plus 3?" with the default script', async () => {
    const server = await start();
    const stream = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'what is 2 plus 3?' }],
      tools: [getSumTool],
      stream: true,
    });
    const collected = await collect(stream);

    expect(collected.finishReason).toBe('tool_calls');
    expect(collected.toolCalls).toHaveLength(1);
    const call = collected.toolCalls[0];
    expect(call?.name).toBe('everything_get-sum');
    expect(call?.id).toMatch(/^call_/);
    expect(JSON.parse(call?.arguments ?? '')).toEqual({ a: 2, b: 3 });
    const argumentChunks = collected.chunks.filter(
      (chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments,
    );
    expect(argumentChunks.length).toBeGreaterThanOrEqual(2);
    expect(argumentChunks.length).toBeLessThanOrEqual(3);
  });

  it('states the tool result when the last message is a tool message', async () => {
    const server = await start();
    const stream = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: [
        { role: 'user', content: 'what is 2 plus 3?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'everything_get-sum', arguments: '{"a":2,"b":3}' },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }],
        },
      ],
      tools: [getSumTool],
      stream: true,
    });
    const collected = await collect(stream);
    expect(collected.text).toContain('The sum of 2 and 3 is 5.');
    expect(collected.finishReason).toBe('stop');
  });

  it('answers requests in order with scriptFromReplies, repeating the last one', async () => {
    const server = await start({
      script: scriptFromReplies([{ text: 'first' }, { text: 'second' }]),
    });
    const client = clientFor(server);
    const texts: string[] = [];
    for (let turn = 0; turn < 3; turn += 1) {
      const stream = await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `turn ${turn}` }],
        stream: true,
      });
      texts.push((await collect(stream)).text);
    }
    expect(texts).toEqual(['first', 'second', 'second']);
  });

  it('surfaces a scripted HTTP error as the SDK APIError with that status', async () => {
    const server = await start({
      script: scriptFromReplies([{ status: 429, error: 'Slow down.' }]),
    });
    const error = await clientFor(server)
      .chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(429);
    expect((error as APIError).message).toContain('Slow down.');
  });

  it('sends a usage chunk with empty choices when include_usage is set', async () => {
    const server = await start({
      script: () => ({ text: 'abcd efgh', usage: { promptTokens: 7 } }),
    });
    const stream = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const collected = await collect(stream);
    const last = collected.chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  it('streams reasoning first and raw (invalid JSON) tool arguments unchanged', async () => {
    const server = await start({
      script: () => ({
        reasoning: 'Thinking it over.',
        text: 'Calling.',
        toolCalls: [
          { name: 'first', arguments: '{"broken": ' },
          { name: 'second', arguments: { ok: true }, id: 'call_fixed' },
        ],
      }),
    });
    const stream = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const collected = await collect(stream);
    expect(collected.reasoning).toBe('Thinking it over.');
    expect(collected.text).toBe('Calling.');
    expect(collected.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'first', arguments: '{"broken": ' },
      { id: 'call_fixed', name: 'second', arguments: '{"ok":true}' },
    ]);
    const firstContent = collected.chunks.findIndex((chunk) => chunk.choices[0]?.delta.content);
    const firstReasoning = collected.chunks.findIndex(
      (chunk) => (chunk.choices[0]?.delta as { reasoning_content?: string }).reasoning_content,
    );
    expect(firstReasoning).toBeGreaterThan(0);
    expect(firstReasoning).toBeLessThan(firstContent);
  });

  it('answers non-streaming requests with a chat.completion object', async () => {
    const server = await start();
    const completion = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'add 1.5 and -4' }],
      tools: [getSumTool],
    });
    expect(completion.object).toBe('chat.completion');
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(JSON.parse(call.function.arguments)).toEqual({ a: 1.5, b: -4 });
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);

    const plain = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(plain.choices[0]?.message.content).toBe(
      'I am a scripted model (no real LLM). Ask me "what is 2 plus 3?" and I will call the ' +
        'get-sum tool. You said: hello there',
    );
  });

  it('records every request body', async () => {
    const server = await start();
    await clientFor(server).chat.completions.create({
      model: 'recorded-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [getSumTool],
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      model: 'recorded-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [getSumTool],
    });
  });

  it('answers an invalid JSON body with a 400 OpenAI-shaped error', async () => {
    const server = await start();
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model": "scripted", "messages": [',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/JSON/);
    expect(server.requests).toEqual([]);
  });

  it('serves models, CORS preflights and 404s for unknown routes', async () => {
    const server = await start();
    const models = await clientFor(server).models.list();
    expect(models.data.map((model) => model.id)).toEqual(['scripted']);

    const preflight = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-stainless-os',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');

    const missing = await fetch(`${server.url}/v1/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await missing.json()) as { error: { message: string; type: string } };
    expect(body.error.message).toContain('/v1/nowhere');
  });

  it('also accepts /chat/completions without the /v1 prefix', async () => {
    const server = await start({ script: () => ({ text: 'no prefix' }) });
    const client = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('no prefix');
  });

  it('survives a client that disconnects mid-stream', async () => {
    const server = await start({
      script: () => ({ text: 'one two three four five', delayMs: 50 }),
    });
    const client = clientFor(server);
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: controller.signal },
    );
    let received = '';
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta.content ?? '';
      // The SDK ends the iteration quietly once its request is aborted.
      if (received.length > 0) controller.abort();
    }
    expect(received).toBe('one ');

    await new Promise((resolve) => setTimeout(resolve, 200));
    const next = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'again' }],
    });
    expect(next.choices[0]?.message.content).toBe('one two three four five');
  });

  it('close() resolves even with an open streaming connection', async () => {
    const server = await startScriptedModelServer({
      script: () => ({ text: 'slow stream of words', delayMs: 60_000 }),
    });
    try {
      const stream = await clientFor(server).chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).toBe(false);
      const pending = iterator.next().then(
        () => 'settled',
        () => 'settled',
      );

      const startedAt = Date.now();
      await server.close();
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      await expect(pending).resolves.toBe('settled');
    } finally {
      await server.close();
    }
  });

  it('adds scripted headers and cuts streamed and non-streamed answers with cutAfterChunks', async () => {
    const server = await start({
      script: scriptFromReplies([
        { text: 'one two three', headers: { 'x-scripted': 'yes' }, cutAfterChunks: 2 },
        { text: 'one two three', cutAfterChunks: 1 },
      ]),
    });
    const streamed = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'scripted', messages: [], stream: true }),
    });
    expect(streamed.headers.get('x-scripted')).toBe('yes');
    expect(streamed.headers.get('connection')).toBe('close');
    const body = await streamed.text();
    expect(body.match(/^data: /gm)).toHaveLength(2);
    expect(body).not.toContain('[DONE]');

    const whole = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'scripted', messages: [] }),
    });
    expect(whole.status).toBe(200);
    await expect(whole.text()).rejects.toThrow();
    expect(server.requests.map((record) => record.format)).toEqual([
      'chat-completions',
      'chat-completions',
    ]);
  });

  it('closes when its signal aborts and refuses to start with an aborted signal', async () => {
    const controller = new AbortController();
    const server = await start({ signal: controller.signal });
    controller.abort();
    await server.close();
    await expect(fetch(`${server.url}/v1/models`)).rejects.toThrow();

    await expect(startScriptedModelServer({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'aborted',
    });
  });
});

describe('defaultModelScript', () => {
  function request(content: string, toolNames: string[]): ChatRequest {
    return {
      model: 'scripted',
      messages: [{ role: 'user', content }],
      tools: toolNames.map((name) => ({ type: 'function', function: { name } })),
    };
  }

  it('calls a sum tool with the first two numbers', async () => {
    expect(await defaultModelScript(request('What is 2 + 3?', ['get_sum']))).toEqual({
      toolCalls: [{ name: 'get_sum', arguments: { a: 2, b: 3 } }],
    });
    expect(await defaultModelScript(request('sum -1.25 and 10', ['add']))).toEqual({
      toolCalls: [{ name: 'add', arguments: { a: -1.25, b: 10 } }],
    });
  });

  it('replies with text when no sum tool is offered or the message is not an addition', async () => {
    const withoutTool = await defaultModelScript(request('what is 2 plus 3?', ['echo']));
    expect(withoutTool.toolCalls).toBeUndefined();
    expect(withoutTool.text).toContain('You said: what is 2 plus 3?');
    const notAddition = await defaultModelScript(request('I have 2 cats and 3 dogs', ['get-sum']));
    expect(notAddition.toolCalls).toBeUndefined();
  });

  it('calls an echo tool with the text after "echo"', async () => {
    expect(
      await defaultModelScript(request('please echo hello world', ['everything_echo'])),
    ).toEqual({ toolCalls: [{ name: 'everything_echo', arguments: { message: 'hello world' } }] });
  });

  it('joins trailing tool results', async () => {
    const reply = await defaultModelScript({
      model: 'scripted',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_1', content: '5' },
      ],
    });
    expect(reply).toEqual({ text: 'The tool returned: 5' });
  });

  it('rejects an empty reply list', () => {
    expect(() => scriptFromReplies([])).toThrow(/at least one reply/);
  });
});
