import { describe, expect, it } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import { toResponsesInput } from './to-responses-input.ts';
import {
  LARGE_TEXT,
  PIXEL_CAPTION,
  README_TEXT,
  withResources,
} from '../model/resource-parts-test-support.ts';

describe('toResponsesInput', () => {
  it('maps messages, calls (empty arguments as {}) and outputs (errors prefixed), skipping reasoning', () => {
    const items: Item[] = [
      { type: 'message', role: 'system', content: 'Answer in French.' },
      { type: 'message', role: 'user', content: 'weather?' },
      { type: 'reasoning', text: 'not sent' },
      { type: 'function_call', callId: 'c1', name: 'weather', arguments: '' },
      { type: 'function_call_output', callId: 'c1', output: { text: 'offline', isError: true } },
      { type: 'message', role: 'assistant', content: 'It is offline.' },
    ];
    expect(toResponsesInput(items)).toEqual([
      { type: 'message', role: 'system', content: 'Answer in French.' },
      { type: 'message', role: 'user', content: 'weather?' },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'Error: offline' },
      { type: 'message', role: 'assistant', content: 'It is offline.' },
    ]);
  });
});

describe('toResponsesInput with resources attached to a user message', () => {
  it('sends text as input_text, the image as input_image, the large file as a reference', () => {
    expect(toResponsesInput([withResources])).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Use these.' },
          { type: 'input_text', text: README_TEXT },
          { type: 'input_text', text: PIXEL_CAPTION },
          { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBO' },
          { type: 'input_text', text: LARGE_TEXT },
        ],
      },
    ]);
  });
});
