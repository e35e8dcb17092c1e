import { describe, expect, it } from 'vitest';
import { defaultModelScript, sensibleArguments } from './model-script.ts';
import type { ChatRequestMessage, ChatTool, ModelScriptRequest } from './model-script.ts';

function tools(...names: string[]): ChatTool[] {
  return names.map((name) => ({ type: 'function', function: { name } }));
}

/** A request whose last message is the user's `text`, offering `offered` tools. */
function ask(text: string, offered: ChatTool[]): ModelScriptRequest {
  return { model: 'scripted', messages: [{ role: 'user', content: text }], tools: offered };
}

/** The playground's tool names: prefixed demo tools next to the everything server's. */
const playgroundTools = tools(
  'demo_book_table',
  'demo_connect_account',
  'demo_slow_count',
  'demo_delete_file',
  'demo_read_file',
  'demo_get_weather',
  'echo',
  'get-sum',
  'get-tiny-image',
  'trigger-elicitation-request',
  'trigger-elicitation-request-async',
  'trigger-long-running-operation',
  'tool_search',
);

describe('defaultModelScript: playground phrases', () => {
  it.each([
    ['delete notes.txt', 'demo_delete_file', { path: 'notes.txt' }],
    ['please remove the file "old/report.pdf".', 'demo_delete_file', { path: 'old/report.pdf' }],
    ['read notes.txt', 'demo_read_file', { path: 'notes.txt' }],
    ['book a table', 'demo_book_table', {}],
    ['Reserve a table at Chez Anna, please', 'demo_book_table', { restaurant: 'Chez Anna' }],
    ['connect my calendar', 'demo_connect_account', { service: 'calendar' }],
    ['Connect my GitHub account.', 'demo_connect_account', { service: 'GitHub' }],
    ['count to 5 slowly', 'demo_slow_count', { count: 5, delayMs: 400 }],
    ['start a long operation', 'trigger-long-running-operation', { duration: 2, steps: 5 }],
    ['weather in Oslo', 'demo_get_weather', { city: 'Oslo' }],
    ["What's the weather like in New York today?", 'demo_get_weather', { city: 'New York' }],
    ['what is the weather?', 'demo_get_weather', { city: 'Oslo' }],
    ['ask me for my details', 'trigger-elicitation-request', {}],
    ['trigger an elicitation', 'trigger-elicitation-request', {}],
    ['show me an image', 'get-tiny-image', {}],
    ['find a tool for invoices', 'tool_search', { query: 'invoices' }],
    ['Search for tools about weather alerts?', 'tool_search', { query: 'weather alerts' }],
  ])('"%s" → %s', async (text, name, args) => {
    expect(await defaultModelScript(ask(text, playgroundTools))).toEqual({
      toolCalls: [{ name, arguments: args }],
    });
  });

  it('falls back between the two progress tools', async () => {
    expect(
      await defaultModelScript(ask('count to 3', tools('trigger-long-running-operation'))),
    ).toEqual({
      toolCalls: [{ name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 3 } }],
    });
    expect(await defaultModelScript(ask('a long-running task', tools('x_slow_count')))).toEqual({
      toolCalls: [{ name: 'x_slow_count', arguments: { count: 5, delayMs: 400 } }],
    });
    expect(await defaultModelScript(ask('count to 5000', tools('x_slow_count')))).toEqual({
      toolCalls: [{ name: 'x_slow_count', arguments: { count: 100, delayMs: 400 } }],
    });
  });

  it('keeps the addition and echo rules first', async () => {
    expect(await defaultModelScript(ask('what is 2 plus 3?', playgroundTools))).toEqual({
      toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 3 } }],
    });
    expect(await defaultModelScript(ask('echo delete notes.txt', playgroundTools))).toEqual({
      toolCalls: [{ name: 'echo', arguments: { message: 'delete notes.txt' } }],
    });
  });

  it('searches when asked to find a tool, even for words another rule knows', async () => {
    expect(await defaultModelScript(ask('find a tool to delete files', playgroundTools))).toEqual({
      toolCalls: [{ name: 'tool_search', arguments: { query: 'delete files' } }],
    });
  });

  it('answers with text when the matching tool is not offered', async () => {
    for (const text of ['delete notes.txt', 'book a table', 'weather in Oslo', 'find a tool']) {
      const reply = await defaultModelScript(ask(text, tools('echo')));
      expect(reply.toolCalls).toBeUndefined();
      expect(reply.text).toContain(`You said: ${text}`);
    }
  });
});

describe('defaultModelScript: after tool results', () => {
  const searchCall: ChatRequestMessage = {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_search',
        type: 'function',
        function: { name: 'tool_search', arguments: '{"query":"invoices"}' },
      },
    ],
  };
  const searchResult = (content: string): ChatRequestMessage => ({
    role: 'tool',
    tool_call_id: 'call_search',
    content,
  });
  const found =
    'Loaded 2 tool(s); they can be called now:\n' +
    '- demo_tool_000: Searches invoices for the sales team.\n' +
    '- demo_tool_016: Summarizes invoices in the EU region.';

  it('calls the first found tool after tool_search, with {} when nothing is required', async () => {
    const reply = await defaultModelScript({
      model: 'scripted',
      messages: [
        { role: 'user', content: 'find a tool for invoices' },
        searchCall,
        searchResult(found),
      ],
      tools: [
        ...tools('tool_search', 'demo_tool_016'),
        {
          type: 'function',
          function: {
            name: 'demo_tool_000',
            parameters: {
              type: 'object',
              properties: { query: { type: 'string', default: '' }, limit: { type: 'integer' } },
            },
          },
        },
      ],
    });
    expect(reply).toEqual({ toolCalls: [{ name: 'demo_tool_000', arguments: {} }] });
  });

  it('skips found tools that are not offered, and fills required arguments', async () => {
    const reply = await defaultModelScript({
      model: 'scripted',
      messages: [
        { role: 'user', content: 'find a tool for invoices' },
        searchCall,
        searchResult(found),
      ],
      tools: [
        ...tools('tool_search'),
        {
          type: 'function',
          function: {
            name: 'demo_tool_016',
            parameters: {
              type: 'object',
              properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 2 } },
              required: ['text', 'count'],
            },
          },
        },
      ],
    });
    expect(reply).toEqual({
      toolCalls: [{ name: 'demo_tool_016', arguments: { text: 'invoices', count: 2 } }],
    });
  });

  it('reports a search that found nothing, and the found tool’s own result, as text', async () => {
    const nothing = await defaultModelScript({
      model: 'scripted',
      messages: [searchCall, searchResult('No deferred tools matched "invoices".')],
      tools: tools('tool_search'),
    });
    expect(nothing).toEqual({ text: 'The tool returned: No deferred tools matched "invoices".' });

    const after = await defaultModelScript({
      model: 'scripted',
      messages: [
        searchCall,
        searchResult(found),
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'demo_tool_000', arguments: '{}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_2', content: '3 item(s)' },
      ],
      tools: tools('tool_search', 'demo_tool_000'),
    });
    expect(after).toEqual({ text: 'The tool returned: 3 item(s)' });
  });

  it('says when the user declined the call', async () => {
    const reply = await defaultModelScript({
      model: 'scripted',
      messages: [
        { role: 'user', content: 'delete notes.txt' },
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'demo_delete_file', arguments: '{"path":"notes.txt"}' },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          content: 'Error: The user declined this tool call; it was not run.',
        },
      ],
    });
    expect(reply).toEqual({ text: 'You declined the demo_delete_file call, so I did not run it.' });
  });
});

describe('sensibleArguments', () => {
  it('fills required properties without defaults and leaves the rest out', () => {
    expect(
      sensibleArguments(
        {
          type: 'object',
          properties: {
            mode: { type: 'string', enum: ['fast', 'slow'] },
            fixed: { const: 7 },
            flag: { type: 'boolean' },
            list: { type: 'array' },
            nested: { type: 'object' },
            size: { type: ['number', 'null'] },
            named: { type: 'string', default: 'x' },
            note: { type: 'string' },
            untyped: {},
          },
          required: ['mode', 'fixed', 'flag', 'list', 'nested', 'size', 'named', 'untyped'],
        },
        '',
      ),
    ).toEqual({
      mode: 'fast',
      fixed: 7,
      flag: false,
      list: [],
      nested: {},
      size: 1,
      untyped: 'example',
    });
    expect(sensibleArguments(undefined)).toEqual({});
  });
});
