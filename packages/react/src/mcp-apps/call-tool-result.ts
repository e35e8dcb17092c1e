import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ToolOutput } from '@switchboard/core';

/**
 * A stored {@link ToolOutput} as the MCP `CallToolResult` a view expects in
 * `ui/notifications/tool-result` and `tools/call` answers: text as one text block, other blocks
 * as they were kept, `structuredContent` and `isError` as sent. The view gets what the tool
 * returned; the model never sees `structuredContent` through this.
 */
export function toCallToolResult(output: ToolOutput): CallToolResult {
  const content: CallToolResult['content'] = [];
  if (output.text !== '') content.push({ type: 'text', text: output.text });
  for (const part of output.parts ?? []) {
    if (part.type === 'image' || part.type === 'audio') {
      content.push({ type: part.type, data: part.data, mimeType: part.mimeType });
    } else if (part.type === 'resource_link') {
      content.push({ ...part, name: part.name ?? part.uri } as CallToolResult['content'][number]);
    } else if (part.type === 'resource') {
      content.push({
        type: 'resource',
        resource: part.resource,
      } as CallToolResult['content'][number]);
    }
  }
  const result: CallToolResult = { content };
  if (output.structuredContent !== undefined) result.structuredContent = output.structuredContent;
  if (output.isError === true) result.isError = true;
  return result;
}
