import type { AppModelContextInput, AppToolCallInput, ToolOutput } from '@switchboard/core';

/**
 * The thread an MCP Apps view is shown in, as `McpAppView` uses it: `useAgent()`'s result and an
 * `AgentChat` both are one. With it, the view's tool calls are recorded in the thread and held
 * for approval there, its model context is kept with the thread, and its confirmed `ui/message`
 * is sent as the user's message (docs/mcp-apps.md, "In the thread").
 */
export interface McpAppThread {
  callToolFromApp(
    input: Omit<AppToolCallInput, 'threadId'>,
    options?: { signal?: AbortSignal },
  ): Promise<ToolOutput>;
  updateModelContextFromApp(
    input: Omit<AppModelContextInput, 'threadId'>,
  ): Promise<'stored' | 'held'>;
  send(text: string): Promise<unknown>;
}
