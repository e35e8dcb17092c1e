import type { ResponseInputContent, ResponseInputItem } from 'openai/resources/responses/responses';
import { attachmentContent, type AttachmentData } from '../model/attachment-content.ts';
import { OPENAI_RESPONSES_ATTACHMENT_LIMITS } from '../model/provider-attachment-limits.ts';
import { resourcePartContent } from '../model/resource-part-content.ts';
import type { Item, MessageItem } from '../vocabulary/items.ts';

/**
 * Converts history items to OpenAI Responses `input` items: each message becomes a `message`
 * item with its role and text; each `function_call` a `function_call` item (`call_id`, `name`,
 * `arguments`, `{}` when empty); each `function_call_output` a `function_call_output` item whose
 * `output` is the text (error outputs prefixed `Error: ` so the model can tell). Reasoning items
 * are not sent back (they carry no provider ids or encrypted content). Instructions go in the
 * request's own `instructions` field, not here. Resources attached to a user message become
 * `input_text` / `input_image` parts after its text (`model/resource-part-content.ts`); attached
 * files too, their bytes from `attachments` (`model/attachment-content.ts`): images as
 * `input_image`, documents as `input_file` (`file_data` data URL and `filename`).
 */
export function toResponsesInput(
  items: readonly Item[],
  attachments: AttachmentData = new Map(),
): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const item of items) {
    switch (item.type) {
      case 'message':
        input.push(
          item.role === 'user' && item.parts !== undefined && item.parts.length > 0
            ? { type: 'message', role: 'user', content: userContent(item, attachments) }
            : { type: 'message', role: item.role, content: item.content },
        );
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

/** A user message's text and its attached resources and files as Responses input content. */
function userContent(item: MessageItem, attachments: AttachmentData): ResponseInputContent[] {
  const content: ResponseInputContent[] = [];
  if (item.content !== '') content.push({ type: 'input_text', text: item.content });
  for (const part of item.parts ?? []) {
    const converted =
      part.type === 'attachment'
        ? attachmentContent(part, attachments, OPENAI_RESPONSES_ATTACHMENT_LIMITS)
        : resourcePartContent(part);
    if (converted.kind === 'file') {
      content.push({
        type: 'input_file',
        filename: converted.name,
        file_data: `data:${converted.mimeType};base64,${converted.data}`,
      });
      continue;
    }
    if (converted.kind === 'text') {
      content.push({ type: 'input_text', text: converted.text });
    } else {
      content.push({ type: 'input_text', text: converted.caption });
      content.push({
        type: 'input_image',
        detail: 'auto',
        image_url: `data:${converted.mimeType};base64,${converted.data}`,
      });
    }
  }
  return content;
}
