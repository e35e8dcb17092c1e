/** Where the playground's local servers run. */
export interface PlaygroundConfig {
  /** The everything server's MCP endpoint (Streamable HTTP). */
  mcpUrl: string;
  /** The scripted model server's OpenAI-compatible base URL (ends in `/v1`). */
  modelBaseUrl: string;
}

/**
 * The URLs the dev server injected (Vite `define`, see servers/playground-servers.ts), or the
 * default ports of `npm start` when the page was built without them.
 */
export const playgroundConfig: PlaygroundConfig = {
  mcpUrl: import.meta.env.VITE_SWITCHBOARD_MCP_URL ?? 'http://127.0.0.1:3001/mcp',
  modelBaseUrl: import.meta.env.VITE_SWITCHBOARD_MODEL_BASE_URL ?? 'http://127.0.0.1:3002/v1',
};
