import Anthropic, { RateLimitError } from '@anthropic-ai/sdk';
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
): Promise<{ server: ScriptedModelServer; client: Anthropic }> {
  const server = await startScriptedModelServer(script === undefined ? {} : { script });
  servers.push(server);
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 }) };
}

const getSum = {
  name: 'everything_get-sum',
  description: 'Adds two numbers.',
  input_schema: {
    type: 'object' as const,
    properties: { a: { type: 'number' }, b: { type: 'number' } },
  },
};

/** The `event:` names and parsed `data:` of a raw SSE body. */
function parseEvents(body: string): { event: string; data: Record<string, unknown> }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown>;
      return { event, data };
    });
}

describe('scripted model server: Anthropic Messages', () => {
  it('streams message_start, ping, content blocks, message_delta and message_stop', async () => {
    const { server } = await start(() => ({
      reasoning: 'Think.',
      text: 'Two words',
      toolCalls: [{ id: 'toolu_1', name: 'everything_get-sum', arguments: { a: 2, b: 3 } }],
      usage: { promptTokens: 9, completionTokens: 4, cachedTokens: 2 },
    }));
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'scripted',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parseEvents(await response.text());
    for (const { event, data } of events) expect(data['type']).toBe(event);

    const summary = events.map(({ data }) => {
      const delta = data['delta'] as { type?: string } | undefined;
      const block = data['content_block'] as { type?: string } | undefined;
      return [data['type'], block?.type ?? delta?.type].filter(Boolean).join(':');
    });
    expect(summary).toEqual([
      'message_start',
      'ping',
      'content_block_start:thinking',
      'content_block_delta:thinking_delta',
      'content_block_delta:signature_delta',
      'content_block_stop',
      'content_block_start:text',
      'content_block_delta:text_delta',
      'content_block_delta:text_delta',
      'content_block_stop',
      'content_block_start:tool_use',
      'content_block_delta:input_json_delta',
      'content_block_delta:input_json_delta',
      'content_block_delta:input_json_delta',
      'content_block_delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const first = events[0]?.data['message'] as { usage: Record<string, number> };
    expect(first.usage).toMatchObject({ input_tokens: 7, cache_read_input_tokens: 2 });
    expect(events.at(-2)?.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: 4 },
    });
  });

  it('works with the SDK stream helper, whose final message has the parsed tool input', async () => {
    const { client } = await start();
    const stream = client.messages.stream({
      model: 'scripted',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'what is 2 plus 3?' }],
      tools: [getSum],
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/),
        name: 'everything_get-sum',
        input: { a: 2, b: 3 },
      },
    ]);
  });

  it('answers non-streaming requests with a message object', async () => {
    const { client } = await start(() => ({ reasoning: 'Hmm.', text: 'Hello.' }));
    const message = await client.messages.create({
      model: 'scripted',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      stop_reason: 'end_turn',
      content: [
        { type: 'thinking', thinking: 'Hmm.' },
        { type: 'text', text: 'Hello.' },
      ],
    });
  });

  it('normalises system, tool_use and tool_result blocks for the script', async () => {
    let seen: ModelScriptRequest | undefined;
    const { server, client } = await start((request) => {
      seen = request;
      return { text: 'ok' };
    });
    await client.messages.create({
      model: 'scripted',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'what is 2 plus 3?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Adding.' },
            { type: 'tool_use', id: 'toolu_1', name: 'everything_get-sum', input: { a: 2, b: 3 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '5' },
            { type: 'text', text: 'thanks' },
          ],
        },
      ],
      tools: [getSum],
    });
    expect(seen?.format).toBe('anthropic-messages');
    expect(seen?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'what is 2 plus 3?' },
      {
        role: 'assistant',
        content: 'Adding.',
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: { name: 'everything_get-sum', arguments: '{"a":2,"b":3}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '5' },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
    expect(seen?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'everything_get-sum',
          description: 'Adds two numbers.',
          parameters: getSum.input_schema,
        },
      },
    ]);
    expect(server.requests[0]?.body['system']).toBe('Be brief.');
  });

  it('answers errors in the Anthropic shape, with scripted headers', async () => {
    const { server, client } = await start(() => ({
      status: 429,
      error: 'Rate limited.',
      headers: { 'retry-after': '7' },
    }));
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'scripted', max_tokens: 10, messages: [] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Rate limited.' },
    });

    const error = await client.messages
      .create({ model: 'scripted', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);

    const missing = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'scripted', messages: [] }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
  });

  it('drops the connection after cutAfterChunks chunks', async () => {
    const { server } = await start(() => ({ text: 'one two three', cutAfterChunks: 2 }));
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'scripted',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }),
    });
    expect(response.headers.get('connection')).toBe('close');
    const events = parseEvents(await response.text());
    expect(events.map(({ event }) => event)).toEqual(['message_start', 'ping']);
  });
});
