import type { Item, MessageAttachmentPart } from '../vocabulary/items.ts';
import type { ModelRequest } from './model.ts';

/** How a provider adapter sends one {@link MessageAttachmentPart}. */
export type AttachmentContent =
  /** An image the provider reads as an image; `data` is base64. */
  | { kind: 'image'; mimeType: string; data: string; caption: string }
  /** A document (PDF, text) the provider reads as a file; `data` is base64. */
  | { kind: 'file'; mimeType: string; name: string; data: string }
  /** A one-line reference: the bytes are gone, or the model does not take this type. */
  | { kind: 'text'; text: string };

/** The attachments' bytes of one request, base64, by `attachmentId`. */
export type AttachmentData = ReadonlyMap<string, string>;

/**
 * Reads the bytes of every attachment part of the request's user messages through
 * `request.readAttachment`, once per `attachmentId`, as base64 (every provider takes inline
 * base64: OpenAI data URLs, Anthropic `base64` sources). A part whose bytes are not stored, or
 * a request without a reader, is left out of the map: its part becomes a reference.
 *
 * @throws whatever `readAttachment` throws (a `history_error` of the store, `aborted`).
 */
export async function readAttachmentData(
  request: ModelRequest,
  signal: AbortSignal,
): Promise<AttachmentData> {
  const data = new Map<string, string>();
  const read = request.readAttachment;
  if (read === undefined) return data;
  for (const part of attachmentParts(request.items)) {
    if (data.has(part.attachmentId)) continue;
    const blob = await read(part.attachmentId, { signal });
    if (blob !== undefined) data.set(part.attachmentId, toBase64(await blob.arrayBuffer()));
  }
  return data;
}

/**
 * What an attached file becomes for a model whose provider takes `limits` (its
 * `Model.attachmentLimits`): an image type the provider reads as an image, another accepted
 * type as a file, anything else — bytes no longer stored, a type this provider does not take
 * (the thread may have started on another model) — as a one-line reference naming the file.
 * Never dropped.
 */
export function attachmentContent(
  part: MessageAttachmentPart,
  data: AttachmentData,
  limits: Readonly<Record<string, number>>,
): AttachmentContent {
  const name = describe(part);
  const bytes = data.get(part.attachmentId);
  if (bytes === undefined) {
    return { kind: 'text', text: `[Attached file ${name}: its bytes are no longer stored.]` };
  }
  if (limits[part.mimeType] === undefined) {
    return {
      kind: 'text',
      text: `[Attached file ${name}: a type this model cannot read; not included.]`,
    };
  }
  if (part.mimeType.startsWith('image/')) {
    return {
      kind: 'image',
      mimeType: part.mimeType,
      data: bytes,
      caption: `[Attached file ${name}]`,
    };
  }
  return { kind: 'file', mimeType: part.mimeType, name: part.name, data: bytes };
}

function describe(part: MessageAttachmentPart): string {
  return `name=${JSON.stringify(part.name)} mimeType="${part.mimeType}" bytes=${part.size}`;
}

function* attachmentParts(items: readonly Item[]): Iterable<MessageAttachmentPart> {
  for (const item of items) {
    if (item.type !== 'message') continue;
    for (const part of item.parts ?? []) if (part.type === 'attachment') yield part;
  }
}

/** Base64 of `buffer`, in chunks (a 20 MB file as one `String.fromCharCode` call would overflow the stack). */
function toBase64(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  const chunks: string[] = [];
  for (let start = 0; start < bytes.length; start += 0x8000) {
    chunks.push(String.fromCharCode(...bytes.subarray(start, start + 0x8000)));
  }
  return btoa(chunks.join(''));
}
