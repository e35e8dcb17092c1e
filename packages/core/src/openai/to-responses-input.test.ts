import { describe, expect, it } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import { toResponsesInput } from './to-responses-input.ts';

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
