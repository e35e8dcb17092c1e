import type { McpToolDescriptor } from './mcp-server-types.ts';
import type { McpToolTarget } from './tool-catalog.ts';

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

/** One call target per listed descriptor (descriptors are never changed in place). */
const targets = new WeakMap<McpToolDescriptor, McpToolTarget>();

/**
 * What a direct call to `originalName` needs of its listing: the name, and the input schema
 * (`Mcp-Param-*` headers), output schema (structured content check) and task support when
 * `tools` lists it; the name alone when not. Made once per descriptor, not per call.
 */
export function listedTarget(
  tools: readonly McpToolDescriptor[] | undefined,
  originalName: string,
): McpToolTarget {
  const listed = listedTool(tools, originalName);
  if (listed === undefined) return { name: originalName };
  let target = targets.get(listed);
  if (target === undefined) {
    const { outputSchema, inputSchema, taskSupport } = listed;
    target = {
      name: originalName,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      ...(inputSchema === undefined ? {} : { inputSchema }),
      ...(taskSupport === undefined ? {} : { taskSupport }),
    };
    targets.set(listed, target);
  }
  return target;
}
