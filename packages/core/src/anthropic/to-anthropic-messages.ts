import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { attachmentContent, type AttachmentData } from '../model/attachment-content.ts';
import { ANTHROPIC_ATTACHMENT_LIMITS } from '../model/provider-attachment-limits.ts';
import { resourcePartContent } from '../model/resource-part-content.ts';
import type { Item, MessagePart, ToolOutput } from '../vocabulary/items.ts';

/** The Anthropic request parts {@link toAnthropicMessages} produces. */
export interface AnthropicConversation {
  /** The system prompt: the instructions, then any `system` messages, blank-line separated. */
  system?: string;
  /** Alternating user / assistant messages. */
  messages: MessageParam[];
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function parseInput(argumentsText: string): Record<string, unknown> {
  try {
    const input: unknown = JSON.parse(argumentsText);
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      return input as Record<string, unknown>;
    }
  } catch {
    // Not JSON: the call's output already tells the model; the input must still be an object.
  }
  return {};
}

function toolResult(callId: string, output: ToolOutput): ToolResultBlockParam {
  const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: callId };
  const images: ImageBlockParam[] = (output.parts ?? []).flatMap((part): ImageBlockParam[] =>
    part.type === 'image' && IMAGE_TYPES.has(part.mimeType)
      ? [
          {
            type: 'image',
            source: {
              type: 'base64',
              media_type: part.mimeType as 'image/png',
              data: part.data,
            },
          },
        ]
      : [],
  );
  if (images.length > 0) {
    const text: TextBlockParam[] = output.text === '' ? [] : [{ type: 'text', text: output.text }];
    block.content = [...text, ...images];
  } else if (output.text !== '') {
    block.content = output.text;
  }
  if (output.isError === true) block.is_error = true;
  return block;
}

/**
 * Converts the instructions and history items to an Anthropic Messages request: the
 * instructions (and any `system` message items) become `system`; consecutive assistant text and
 * `function_call` items join one assistant message (text block, then `tool_use` blocks whose
 * `input` is the parsed arguments, `{}` when they are not a JSON object); consecutive
 * `function_call_output` items join one user message of `tool_result` blocks (`is_error` for
 * error outputs; image parts kept as image blocks), followed by any user text. Messages of the
 * same role are merged so roles alternate; resources attached to a user message follow its text
 * as text or image blocks (`model/resource-part-content.ts`), and attached files, their bytes
 * from `attachments` (`model/attachment-content.ts`), as `image` blocks and `document` blocks
 * (a `base64` source for PDFs, a `text` source for plain text, the file name as `title`); empty
 * texts are left out (the API rejects them). Reasoning items are not sent back (thinking blocks
 * need the provider's signature).
 */
export function toAnthropicMessages(
  instructions: string | undefined,
  items: readonly Item[],
  attachments: AttachmentData = new Map(),
): AnthropicConversation {
  const system: string[] = instructions === undefined || instructions === '' ? [] : [instructions];
  const messages: MessageParam[] = [];
  const append = (role: 'user' | 'assistant', block: ContentBlockParam): void => {
    const last = messages.at(-1);
    if (last?.role === role && Array.isArray(last.content)) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const item of items) {
    switch (item.type) {
      case 'message':
        if (item.role === 'system') {
          if (item.content !== '') system.push(item.content);
        } else {
          if (item.content !== '') append(item.role, { type: 'text', text: item.content });
          if (item.role === 'user') {
            for (const part of item.parts ?? []) {
              for (const block of partBlocks(part, attachments)) append('user', block);
            }
          }
        }
        break;
      case 'function_call':
        append('assistant', {
          type: 'tool_use',
          id: item.callId,
          name: item.name,
          input: parseInput(item.arguments),
        });
        break;
      case 'function_call_output':
        append('user', toolResult(item.callId, item.output));
        break;
      case 'reasoning':
        break;
    }
  }
  const conversation: AnthropicConversation = { messages };
  if (system.length > 0) conversation.system = system.join('\n\n');
  return conversation;
}

/**
 * A resource or file attached to a user message as Anthropic content blocks (text, caption +
 * image, or a document).
 */
function partBlocks(part: MessagePart, attachments: AttachmentData): ContentBlockParam[] {
  const converted =
    part.type === 'attachment'
      ? attachmentContent(part, attachments, ANTHROPIC_ATTACHMENT_LIMITS)
      : resourcePartContent(part);
  if (converted.kind === 'text') return [{ type: 'text', text: converted.text }];
  if (converted.kind === 'file') {
    return [
      {
        type: 'document',
        title: converted.name,
        source:
          converted.mimeType === 'text/plain'
            ? { type: 'text', media_type: 'text/plain', data: fromBase64Text(converted.data) }
            : { type: 'base64', media_type: 'application/pdf', data: converted.data },
      },
    ];
  }
  return [
    { type: 'text', text: converted.caption },
    {
      type: 'image',
      source: {
        type: 'base64',
        media_type: converted.mimeType as 'image/png',
        data: converted.data,
      },
    },
  ];
}

/** The UTF-8 text whose bytes `data` holds as base64 (a `text` document source takes the text). */
function fromBase64Text(data: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(data), (char) => char.charCodeAt(0)));
}
