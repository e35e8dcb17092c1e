import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelScript, ModelScriptRequest } from '../model-script.ts';
import { startScriptedModelServer } from '../scripted-model-server.ts';
import type { ScriptedModelServer } from '../scripted-model-server.ts';

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(
  script?: ModelScript,
): Promise<{ server: ScriptedModelServer; client: OpenAI }> {
  const server = await startScriptedModelServer(script === undefined ? {} : { script });
  servers.push(server);
  return {
    server,
    client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 }),
  };
}

const getSum = {
  type: 'function' as const,
  name: 'everything_get-sum',
  description: 'Adds two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  strict: false,
};

describe('scripted model server: Responses API', () => {
  it('streams the official event sequence with increasing sequence numbers', async () => {
    const { client } = await start(() => ({
      reasoning: 'Think.',
      text: 'Two words',
      toolCalls: [{ id: 'call_1', name: 'everything_get-sum', arguments: { a: 2, b: 3 } }],
      usage: { promptTokens: 9, completionTokens: 4, cachedTokens: 2, reasoningTokens: 1 },
    }));
    const stream = await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools: [getSum],
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    const types = events.map((event) => event.type);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(
      types.map((_type, index) => index),
    );
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('expected response.completed');
    expect(completed.response.status).toBe('completed');
    expect(completed.response.usage).toEqual({
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 1 },
      total_tokens: 13,
    });
    expect(completed.response.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    const call = completed.response.output[2];
    expect(call).toMatchObject({ call_id: 'call_1', arguments: '{"a":2,"b":3}' });
  });

  it('answers non-streaming requests with a response object (default script calls get-sum)', async () => {
    const { client } = await start();
    const response = await client.responses.create({
      model: 'scripted',
      input: 'what is 2 plus 3?',
      tools: [getSum],
    });
    expect(response.object).toBe('response');
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'everything_get-sum' });
    expect(JSON.parse(call?.type === 'function_call' ? call.arguments : '')).toEqual({
      a: 2,
      b: 3,
    });

    const plain = await client.responses.create({ model: 'scripted', input: 'hello' });
    expect(plain.output_text).toContain('You said: hello');
  });

  it('normalises instructions and input items for the script and records the raw body', async () => {
    let seen: ModelScriptRequest | undefined;
    const { server, client } = await start((request) => {
      seen = request;
      return { text: 'ok' };
    });
    await client.responses.create({
      model: 'scripted',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'what is 2 plus 3?' },
        { type: 'function_call', call_id: 'c1', name: 'everything_get-sum', arguments: '{"a":2}' },
        { type: 'function_call_output', call_id: 'c1', output: '5' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'thanks' }] },
      ],
      tools: [getSum],
    });
    expect(seen?.format).toBe('responses');
    expect(seen?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'what is 2 plus 3?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'everything_get-sum', arguments: '{"a":2}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '5' },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
    expect(seen?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'everything_get-sum',
          description: 'Adds two numbers.',
          parameters: getSum.parameters,
          strict: false,
        },
      },
    ]);
    expect(server.requests[0]?.body['instructions']).toBe('Be brief.');
    expect(server.requests[0]?.body['tools']).toEqual([getSum]);
  });

  it('rejects a body without input with a 400 in the OpenAI shape', async () => {
    const { server } = await start();
    const response = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'scripted' }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/input/);
    expect(server.requests).toEqual([]);
  });
});
