import { describe, expect, it } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import { toChatMessages } from './to-chat-messages.ts';
import {
  LARGE_TEXT,
  PIXEL_CAPTION,
  README_TEXT,
  withResources,
} from '../model/resource-parts-test-support.ts';

describe('toChatMessages', () => {
  it('puts the instructions first as a system message, and only when non-empty', () => {
    const items: Item[] = [{ type: 'message', role: 'user', content: 'hi' }];
    expect(toChatMessages('Be brief.', items)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(toChatMessages(undefined, items)).toEqual([{ role: 'user', content: 'hi' }]);
    expect(toChatMessages('', items)).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('groups consecutive function_calls into one assistant message with tool_calls', () => {
    const items: Item[] = [
      { type: 'message', role: 'user', content: 'weather in Paris and Rome?' },
      { type: 'function_call', callId: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', callId: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', callId: 'c1', output: { text: 'sunny' } },
      { type: 'function_call_output', callId: 'c2', output: { text: 'rainy' } },
      { type: 'message', role: 'assistant', content: 'Paris is sunny, Rome is rainy.' },
    ];
    expect(toChatMessages(undefined, items)).toEqual([
      { role: 'user', content: 'weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'c2',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'c2', content: 'rainy' },
      { role: 'assistant', content: 'Paris is sunny, Rome is rainy.' },
    ]);
  });

  it('attaches the calls to the assistant text of the same turn, and starts a new message after tool results', () => {
    const items: Item[] = [
      { type: 'message', role: 'user', content: 'go' },
      { type: 'reasoning', text: 'thinking…' },
      { type: 'message', role: 'assistant', content: 'Let me check.' },
      { type: 'function_call', callId: 'c1', name: 'first', arguments: '' },
      { type: 'function_call_output', callId: 'c1', output: { text: 'one' } },
      { type: 'function_call', callId: 'c2', name: 'second', arguments: '{}' },
      { type: 'function_call_output', callId: 'c2', output: { text: 'two' } },
    ];
    expect(toChatMessages(undefined, items)).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'first', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'second', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'two' },
    ]);
  });

  it('prefixes error outputs so the model can tell', () => {
    const items: Item[] = [
      { type: 'function_call', callId: 'c1', name: 'add', arguments: '{"a":"x"}' },
      {
        type: 'function_call_output',
        callId: 'c1',
        output: {
          text: 'Invalid arguments for add',
          isError: true,
          error: { code: 'invalid_tool_arguments', message: 'Invalid arguments for add' },
        },
      },
    ];
    expect(toChatMessages(undefined, items).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Error: Invalid arguments for add',
    });
  });

  it('does not send reasoning back and keeps system and user messages as they are', () => {
    const items: Item[] = [
      { type: 'message', role: 'system', content: 'extra rules' },
      { type: 'reasoning', text: 'secret thoughts' },
      { type: 'message', role: 'user', content: '<b>not html</b>' },
    ];
    expect(toChatMessages(undefined, items)).toEqual([
      { role: 'system', content: 'extra rules' },
      { role: 'user', content: '<b>not html</b>' },
    ]);
  });
});

describe('toChatMessages with resources attached to a user message', () => {
  it('sends text as text, the image as image_url, the large file as a reference', () => {
    expect(toChatMessages(undefined, [withResources])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Use these.' },
          { type: 'text', text: README_TEXT },
          { type: 'text', text: PIXEL_CAPTION },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
          { type: 'text', text: LARGE_TEXT },
        ],
      },
    ]);
  });
});
