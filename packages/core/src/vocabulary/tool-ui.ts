/**
 * MCP Apps (`io.modelcontextprotocol/ui`, stable 2026-01-26, "Resource Discovery"): who may call
 * a tool. `model`: the agent sees and calls it; `app`: a view of the same server may call it.
 */
export type ToolVisibility = 'model' | 'app';

/** A tool's `_meta.ui`: the `ui://` view that renders its results, and who may call it. */
export interface ToolUi {
  /** The `ui://` resource that renders this tool's results; absent for an app-only helper. */
  resourceUri?: string;
  /** Who may call the tool. Absent means `['model', 'app']` (the spec's default). */
  visibility?: readonly ToolVisibility[];
}

/** The view a tool call's result is rendered with: its server and `ui://` resource. */
export interface ToolCallUi {
  /** The `ui://` resource (read with `resources/read` from the same server). */
  resourceUri: string;
}

/**
 * An MCP Apps view, named by the tool call whose result it renders: the server it belongs to,
 * the provider-facing name of that tool, and that call's id. It labels what a view asked for
 * (a tool call, model context) wherever history keeps it (docs/mcp-apps.md, "In the thread").
 */
export interface AppViewRef {
  /** The MCP server's name (`McpServer.name`). */
  server: string;
  /** The provider-facing name of the tool whose result the view renders. */
  toolName: string;
  /** The call id of that tool call. */
  callId: string;
}
