import { describe, expect, it } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import { toChatMessages } from './to-chat-messages.ts';
import { toResponsesInput } from './to-responses-input.ts';

// MCP Apps 2026-01-26, "Data Passing": `structuredContent` is for the view, "not added to model
// context". The result opts in by carrying no text: then `mapCallToolResult` made the JSON the
// text (the core spec's "SHOULD also return the serialized JSON in a TextContent block").
const items = (text: string): Item[] => [
  { type: 'function_call', callId: 'c1', name: 'show_chart', arguments: '{}' },
  {
    type: 'function_call_output',
    callId: 'c1',
    output: {
      text,
      structuredContent: { points: [3, 1, 4], secret: 'view-only' },
      ui: { resourceUri: 'ui://demo/chart' },
    },
  },
];

describe('what the OpenAI adapters send of an MCP Apps result', () => {
  it('sends the text, never structuredContent or the view', () => {
    for (const sent of [
      JSON.stringify(toResponsesInput(items('Chart of sales: 3 points.'))),
      JSON.stringify(toChatMessages(undefined, items('Chart of sales: 3 points.'))),
    ]) {
      expect(sent).toContain('Chart of sales: 3 points.');
      expect(sent).not.toContain('view-only');
      expect(sent).not.toContain('ui://demo/chart');
    }
  });

  it('sends structuredContent only as the text a result without text was given', () => {
    const json = JSON.stringify({ points: [3, 1, 4], secret: 'view-only' });
    const sent = JSON.stringify(toResponsesInput(items(json)));
    expect(sent).toContain(JSON.stringify(json).slice(1, -1));
    expect(sent).not.toContain('ui://demo/chart');
  });
});
