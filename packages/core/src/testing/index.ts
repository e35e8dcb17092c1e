/**
 * `@switchboard/core/testing`: doubles for an app's own tests, with no network and no Node
 * built-ins (they run in Vitest, Jest or a browser): an in-process model, an MCP server linked in
 * memory, and helpers to drain a run. See docs/testing.md.
 */
export { failedTurn, mockModel, textTurn, toolCallTurn } from './mock-model.ts';
export type { MockModel, MockModelOptions, MockTurn } from './mock-model.ts';
export { linkedMcpServer } from './linked-mcp-server.ts';
export type { LinkableMcpServer, LinkedMcpServerOptions } from './linked-mcp-server.ts';
export { collectRun, ofType } from './collect-run.ts';
export type { CollectedRun } from './collect-run.ts';
