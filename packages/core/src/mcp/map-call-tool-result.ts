import type { ToolOutput, ToolResultPart } from '../vocabulary/items.ts';

/** The parts of an MCP `CallToolResult` (spec 2025-11-25, "Tool result") this mapping reads. */
export interface CallToolResultLike {
  content?: readonly Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * Maps an MCP `CallToolResult` to a {@link ToolOutput} (docs/architecture.md, "The vocabulary"):
 * all text blocks joined
 * with a newline; image, audio, `resource` and `resource_link` blocks kept as parts, never
 * dropped; a block of any other type kept as an `opaque` part (with a one-line note in the
 * text); `structuredContent` kept (and, when there is no text, serialised as the text so the
 * model sees it); `isError: true` becomes an error output.
 */
export function mapCallToolResult(result: CallToolResultLike): ToolOutput {
  const texts: string[] = [];
  const parts: ToolResultPart[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        texts.push(String(block.text ?? ''));
        break;
      case 'image':
      case 'audio':
        parts.push({
          type: block.type,
          data: String(block.data ?? ''),
          mimeType: String(block.mimeType ?? 'application/octet-stream'),
        });
        break;
      case 'resource':
        parts.push({
          type: 'resource',
          resource: (block.resource ?? {}) as Record<string, unknown>,
        });
        break;
      case 'resource_link': {
        const link: ToolResultPart = { type: 'resource_link', uri: String(block.uri ?? '') };
        if (typeof block.name === 'string') link.name = block.name;
        if (typeof block.mimeType === 'string') link.mimeType = block.mimeType;
        if (typeof block.description === 'string') link.description = block.description;
        parts.push(link);
        break;
      }
      default: {
        // An unknown block type from a newer server: kept whole as an opaque part, and named in
        // the text so the model knows something came back that it cannot read.
        const contentType = typeof block.type === 'string' ? block.type : 'unknown';
        parts.push({ type: 'opaque', contentType, block: { ...block } });
        texts.push(`[A "${contentType.slice(0, 64)}" content block this client cannot show.]`);
      }
    }
  }
  let text = texts.join('\n');
  if (text === '' && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent);
  }
  const output: ToolOutput = { text };
  if (result.isError === true) output.isError = true;
  if (parts.length > 0) output.parts = parts;
  if (result.structuredContent !== undefined) output.structuredContent = result.structuredContent;
  return output;
}
