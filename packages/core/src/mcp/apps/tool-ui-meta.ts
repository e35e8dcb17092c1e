import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { ToolUi, ToolVisibility } from '../../vocabulary/tool-ui.ts';

/** The MCP Apps extension's identifier (SEP-1865; stable text 2026-01-26). */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The only view content type of MCP Apps 2026-01-26 ("UI Resource Format"). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * A listed tool's `_meta.ui` (and the deprecated flat `_meta["ui/resourceUri"]`, which the
 * stable text still names), read leniently: a `resourceUri` that is not `ui://` and unknown
 * visibility values are dropped, so a malformed entry never widens what the tool may do.
 */
export function readToolUi(listed: Pick<McpTool, '_meta'>): ToolUi | undefined {
  const meta = listed._meta;
  if (meta === undefined || meta === null) return undefined;
  const ui = meta['ui'];
  const nested = typeof ui === 'object' && ui !== null ? (ui as Record<string, unknown>) : {};
  const uri = nested['resourceUri'] ?? meta['ui/resourceUri'];
  const result: ToolUi = {};
  if (typeof uri === 'string' && uri.startsWith('ui://')) result.resourceUri = uri;
  const visibility = nested['visibility'];
  if (Array.isArray(visibility)) {
    result.visibility = visibility.filter(
      (entry): entry is ToolVisibility => entry === 'model' || entry === 'app',
    );
  }
  return result.resourceUri === undefined && result.visibility === undefined ? undefined : result;
}

/** Whether the model may see and call the tool: visibility absent, or naming `model`. */
export function isModelVisible(tool: { ui?: ToolUi }): boolean {
  const visibility = tool.ui?.visibility;
  return visibility === undefined || visibility.includes('model');
}

/** Whether a view may call the tool: visibility absent, or naming `app`. */
export function isAppVisible(tool: { ui?: ToolUi }): boolean {
  const visibility = tool.ui?.visibility;
  return visibility === undefined || visibility.includes('app');
}
