// Runs the agent server until Ctrl-C. Defaults point at the offline servers `npm start` runs in
// the Switchboard repository (the scripted model on :3002, the demo MCP server on :3003) and
// allow the playground's page (:5173) to call it.
import { startAgentServer } from './agent-server.mjs';

const server = await startAgentServer({
  port: Number(process.env.PORT ?? 3010),
  modelBaseUrl: process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:3002/v1',
  apiKey: process.env.OPENAI_API_KEY ?? 'scripted',
  model: process.env.OPENAI_MODEL ?? 'scripted',
  mcpUrl: process.env.MCP_URL ?? 'http://127.0.0.1:3003/modern/mcp',
  directory: process.env.THREADS_DIR ?? './threads',
  corsOrigins: (process.env.CORS_ORIGINS ?? 'http://localhost:5173,http://127.0.0.1:5173')
    .split(',')
    .filter((origin) => origin !== ''),
  ...(process.env.AGENT_TOKEN === undefined ? {} : { token: process.env.AGENT_TOKEN }),
});
console.log(`Agent server: ${server.url}`);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
