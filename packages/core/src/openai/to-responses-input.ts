import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { Item } from '../vocabulary/items.ts';

/**
 * Converts history items to OpenAI Responses `input` items: each message becomes a `message`
 * item with its role and text; each `function_call` a `function_call` item (`call_id`, `name`,
 * `arguments`, `{}` when empty); each `function_call_output` a `function_call_output` item whose
 * `output` is the text (error outputs prefixed `Error: ` so the model can tell). Reasoning items
 * are not sent back (they carry no provider ids or encrypted content). Instructions go in the
 * request's own `instructions` field, not here.
 */
export function toResponsesInput(items: readonly Item[]): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const item of items) {
    switch (item.type) {
      case 'message':
        input.push({ type: 'message', role: item.role, content: item.content });
        break;
      case 'function_call':
        input.push({
          type: 'function_call',
          call_id: item.callId,
          name: item.name,
          arguments: item.arguments || '{}',
        });
        break;
      case 'function_call_output':
        input.push({
          type: 'function_call_output',
          call_id: item.callId,
          output: item.output.isError === true ? `Error: ${item.output.text}` : item.output.text,
        });
        break;
      case 'reasoning':
        break;
    }
  }
  return input;
}
