import { describe, expect, it } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import { toAnthropicMessages } from './to-anthropic-messages.ts';
import {
  LARGE_TEXT,
  PIXEL_CAPTION,
  README_TEXT,
  withResources,
} from '../model/resource-parts-test-support.ts';

describe('toAnthropicMessages', () => {
  it('puts the instructions and system messages into system, and leaves it out when empty', () => {
    const items: Item[] = [
      { type: 'message', role: 'system', content: 'Answer in French.' },
      { type: 'message', role: 'user', content: 'hi' },
    ];
    expect(toAnthropicMessages('Be brief.', items)).toEqual({
      system: 'Be brief.\n\nAnswer in French.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect(toAnthropicMessages('', items.slice(1))).toEqual({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('groups calls into one assistant message and their outputs, then user text, into one user message', () => {
    const items: Item[] = [
      { type: 'message', role: 'user', content: 'weather in Paris and Rome?' },
      { type: 'message', role: 'assistant', content: '' },
      { type: 'function_call', callId: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', callId: 'c2', name: 'weather', arguments: 'not json' },
      { type: 'reasoning', text: 'ignored' },
      { type: 'function_call_output', callId: 'c1', output: { text: 'sunny' } },
      { type: 'function_call_output', callId: 'c2', output: { text: 'bad', isError: true } },
      { type: 'message', role: 'user', content: 'and tomorrow?' },
    ];
    expect(toAnthropicMessages(undefined, items).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'c2', name: 'weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'bad', is_error: true },
          { type: 'text', text: 'and tomorrow?' },
        ],
      },
    ]);
  });

  it('keeps image parts of a tool output as image blocks next to its text', () => {
    const items: Item[] = [
      { type: 'function_call', callId: 'c1', name: 'screenshot', arguments: '{}' },
      {
        type: 'function_call_output',
        callId: 'c1',
        output: {
          text: 'Here it is.',
          parts: [
            { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
            { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav' },
          ],
        },
      },
    ];
    expect(toAnthropicMessages(undefined, items).messages[1]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { type: 'text', text: 'Here it is.' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: 'aGVsbG8=' },
            },
          ],
        },
      ],
    });
  });
});

describe('toAnthropicMessages with resources attached to a user message', () => {
  it('sends text as text blocks, the image as an image block, the large file as a reference', () => {
    expect(toAnthropicMessages(undefined, [withResources]).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Use these.' },
          { type: 'text', text: README_TEXT },
          { type: 'text', text: PIXEL_CAPTION },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
          { type: 'text', text: LARGE_TEXT },
        ],
      },
    ]);
  });
});
