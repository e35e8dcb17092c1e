// Runs the Restate worker until Ctrl-C: the agent as a Restate deployment, registered with
// Restate at start. Defaults point at the offline servers `npm start` runs in the Switchboard
// repository (the scripted model on :3002, the demo MCP server on :3003).
import { environment, stopOnSignal } from './environment.mjs';
import { startRestateWorker } from './restate-agent-server.mjs';

const worker = await startRestateWorker({
  ...environment,
  port: Number(process.env.PORT ?? 9080),
  ...(process.env.ADVERTISED_URL === undefined
    ? {}
    : { advertisedUrl: process.env.ADVERTISED_URL }),
  modelBaseUrl: process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:3002/v1',
  apiKey: process.env.OPENAI_API_KEY ?? 'scripted',
  model: process.env.OPENAI_MODEL ?? 'scripted',
  mcpUrl: process.env.MCP_URL ?? 'http://127.0.0.1:3003/modern/mcp',
});
console.log(`Restate worker: ${worker.url} (registered with ${environment.adminUrl})`);
stopOnSignal(worker);
