import type { McpToolDescriptor } from './mcp-server-types.ts';

/** One name index per listed tools array (a snapshot's arrays are never changed in place). */
const indexes = new WeakMap<readonly McpToolDescriptor[], Map<string, McpToolDescriptor>>();

/**
 * The tool `tools` lists under the server's own name `originalName` (the first, if listed
 * twice), or undefined. The index is built once per array and dropped with it, so a direct call
 * costs a map lookup, not a scan of every listed tool.
 */
export function listedTool(
  tools: readonly McpToolDescriptor[] | undefined,
  originalName: string,
): McpToolDescriptor | undefined {
  if (tools === undefined) return undefined;
  let index = indexes.get(tools);
  if (index === undefined) {
    index = new Map();
    for (const tool of tools) if (!index.has(tool.originalName)) index.set(tool.originalName, tool);
    indexes.set(tools, index);
  }
  return index.get(originalName);
}
