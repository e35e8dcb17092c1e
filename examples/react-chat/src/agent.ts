import { Agent, IndexedDbHistoryStore, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';

// Defaults: the offline servers `npm start` runs in the Switchboard repository (the scripted
// model on :3002, the demo MCP server on :3003). Set VITE_OPENAI_BASE_URL, VITE_OPENAI_MODEL and
// VITE_MCP_URL at build time for others; a real key belongs on a server, not in a page.
const env = import.meta.env;

export const demo = mcpServer({
  url: env.VITE_MCP_URL ?? 'http://127.0.0.1:3003/modern/mcp',
  name: 'demo',
  // Every call of this tool waits for the user's approval.
  approvalRequiredTools: ['delete_file'],
});

export const agent = new Agent({
  name: 'react-chat',
  instructions: 'Answer briefly. Use the tools when they help.',
  model: openaiChatModel({
    baseURL: env.VITE_OPENAI_BASE_URL ?? 'http://127.0.0.1:3002/v1',
    apiKey: env.VITE_OPENAI_API_KEY ?? 'scripted',
    model: env.VITE_OPENAI_MODEL ?? 'scripted',
  }),
  mcpServers: [demo],
  // Threads and paused runs survive a reload.
  history: new IndexedDbHistoryStore(),
});
