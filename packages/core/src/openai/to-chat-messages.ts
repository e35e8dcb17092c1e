import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { attachmentContent, type AttachmentData } from '../model/attachment-content.ts';
import { OPENAI_CHAT_ATTACHMENT_LIMITS } from '../model/provider-attachment-limits.ts';
import { resourcePartContent } from '../model/resource-part-content.ts';
import type { Item, MessageItem } from '../vocabulary/items.ts';

/**
 * Converts history items to Chat Completions messages: consecutive `function_call` items join the
 * preceding assistant message as `tool_calls`; each `function_call_output` becomes a `tool`
 * message (error outputs are prefixed so the model can tell). Reasoning items are not sent back.
 * Resources attached to a user message become content parts after its text
 * (`model/resource-part-content.ts`: text, `image_url` data URLs, or a reference); attached
 * files too, their bytes from `attachments` (`model/attachment-content.ts`): images as
 * `image_url` data URLs, PDFs as `file` parts (`file_data` data URL and `filename`).
 */
export function toChatMessages(
  instructions: string | undefined,
  items: readonly Item[],
  attachments: AttachmentData = new Map(),
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (instructions !== undefined && instructions !== '') {
    messages.push({ role: 'system', content: instructions });
  }
  for (const item of items) {
    switch (item.type) {
      case 'message':
        messages.push(
          item.role === 'assistant'
            ? { role: 'assistant', content: item.content }
            : item.role === 'user' && item.parts !== undefined && item.parts.length > 0
              ? { role: 'user', content: userContent(item, attachments) }
              : { role: item.role, content: item.content },
        );
        break;
      case 'function_call': {
        const call = {
          id: item.callId,
          type: 'function' as const,
          function: { name: item.name, arguments: item.arguments || '{}' },
        };
        const last = messages.at(-1);
        if (
          last?.role === 'assistant' &&
          (last.tool_calls !== undefined || typeof last.content === 'string')
        ) {
          last.tool_calls = [...(last.tool_calls ?? []), call];
        } else {
          messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        }
        break;
      }
      case 'function_call_output':
        messages.push({
          role: 'tool',
          tool_call_id: item.callId,
          content: item.output.isError === true ? `Error: ${item.output.text}` : item.output.text,
        });
        break;
      case 'reasoning':
        break;
    }
  }
  return messages;
}

/** A user message's text and its attached resources and files as Chat Completions content parts. */
function userContent(item: MessageItem, attachments: AttachmentData): ChatCompletionContentPart[] {
  const content: ChatCompletionContentPart[] = [];
  if (item.content !== '') content.push({ type: 'text', text: item.content });
  for (const part of item.parts ?? []) {
    const converted =
      part.type === 'attachment'
        ? attachmentContent(part, attachments, OPENAI_CHAT_ATTACHMENT_LIMITS)
        : resourcePartContent(part);
    if (converted.kind === 'file') {
      content.push({
        type: 'file',
        file: {
          filename: converted.name,
          file_data: `data:${converted.mimeType};base64,${converted.data}`,
        },
      });
      continue;
    }
    if (converted.kind === 'text') {
      content.push({ type: 'text', text: converted.text });
    } else {
      content.push({ type: 'text', text: converted.caption });
      content.push({
        type: 'image_url',
        image_url: { url: `data:${converted.mimeType};base64,${converted.data}` },
      });
    }
  }
  return content;
}
