import { describe, expect, it } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import { toAnthropicMessages } from './to-anthropic-messages.ts';

// MCP Apps 2026-01-26, "Data Passing": `structuredContent` is for the view, "not added to model
// context"; a result without text carries it as its text (see `mapCallToolResult`).
describe('what the Anthropic adapter sends of an MCP Apps result', () => {
  it('sends the text, never structuredContent or the view', () => {
    const items: Item[] = [
      { type: 'function_call', callId: 'c1', name: 'show_chart', arguments: '{}' },
      {
        type: 'function_call_output',
        callId: 'c1',
        output: {
          text: 'Chart of sales: 3 points.',
          structuredContent: { secret: 'view-only' },
          ui: { resourceUri: 'ui://demo/chart' },
        },
      },
    ];
    const sent = JSON.stringify(toAnthropicMessages(undefined, items));
    expect(sent).toContain('Chart of sales: 3 points.');
    expect(sent).not.toContain('view-only');
    expect(sent).not.toContain('ui://demo/chart');
  });
});
