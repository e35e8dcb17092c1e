import type { MessageResourcePart } from '../vocabulary/items.ts';

/** Image types every provider adapter sends as an image (OpenAI and Anthropic accept these). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** How a provider adapter sends one {@link MessageResourcePart}. */
export type ResourcePartContent =
  | { kind: 'text'; text: string }
  | { kind: 'image'; mimeType: string; data: string; caption: string };

/**
 * What a resource attached to a user message becomes for a model (docs/mcp-servers.md,
 * "Resources as context"): a text body as text, wrapped so the model knows where it came from;
 * a PNG, JPEG, GIF or WebP body as an image (with a caption naming it); anything else —
 * another binary, or a body left out for its size — as a one-line reference naming its URI,
 * MIME type and size. Never dropped.
 */
export function resourcePartContent(part: MessageResourcePart): ResourcePartContent {
  const name = describe(part);
  if (part.text !== undefined) {
    return { kind: 'text', text: `<resource ${name}>\n${part.text}\n</resource>` };
  }
  if (part.blob !== undefined && part.mimeType !== undefined && IMAGE_TYPES.has(part.mimeType)) {
    return {
      kind: 'image',
      mimeType: part.mimeType,
      data: part.blob,
      caption: `[Attached image resource ${name}]`,
    };
  }
  const why =
    part.omitted === 'too_large'
      ? 'too large to include'
      : part.blob === undefined
        ? 'no body'
        : 'binary content this model cannot read';
  return { kind: 'text', text: `[Attached resource ${name}: ${why}; not included.]` };
}

function describe(part: MessageResourcePart): string {
  const facts = [`uri="${part.uri}"`];
  if (part.title !== undefined) facts.push(`title="${part.title}"`);
  if (part.server !== undefined) facts.push(`server="${part.server}"`);
  if (part.mimeType !== undefined) facts.push(`mimeType="${part.mimeType}"`);
  if (part.size !== undefined) facts.push(`bytes=${part.size}`);
  return facts.join(' ');
}
