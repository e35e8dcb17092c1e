import type { McpResourceContents } from './resource-types.ts';

/** A `resources/read` body as the wire has it (`TextResourceContents` / `BlobResourceContents`). */
export interface ResourceContentsLike {
  uri: string;
  mimeType?: string | undefined;
  text?: string | undefined;
  blob?: string | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/** Bytes of a base64 string once decoded (padding and whitespace not counted). */
export function base64ByteLength(base64: string): number {
  const compact = base64.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

/** Bytes of `text` in UTF-8. */
export function utf8ByteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Maps the bodies of a `resources/read` result: MIME type and `_meta` kept, `size` in bytes added, and a
 * body over `maxBytes` replaced by `omitted: 'too_large'` (its data is not kept, so it cannot
 * reach a model's context or a stored thread by accident).
 */
export function mapResourceContents(
  contents: readonly ResourceContentsLike[],
  maxBytes: number,
): McpResourceContents[] {
  return contents.map((body) => {
    // `_meta` is kept: MCP Apps reads a view's declared CSP from it (`_meta.ui.csp`).
    const base = {
      uri: body.uri,
      ...(body.mimeType === undefined ? {} : { mimeType: body.mimeType }),
      ...(body._meta === undefined ? {} : { _meta: body._meta }),
    };
    if (typeof body.blob === 'string') {
      const size = base64ByteLength(body.blob);
      return size > maxBytes
        ? { ...base, size, omitted: 'too_large', kind: 'blob' }
        : { ...base, size, blob: body.blob };
    }
    const text = typeof body.text === 'string' ? body.text : '';
    const size = utf8ByteLength(text);
    return size > maxBytes
      ? { ...base, size, omitted: 'too_large', kind: 'text' }
      : { ...base, size, text };
  });
}
