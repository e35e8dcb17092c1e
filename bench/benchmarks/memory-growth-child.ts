/**
 * Child process of benchmark 10, ours: run as `node --expose-gc --import tsx
 * memory-growth-child.ts` (plus the V8 flags the parent chooses) with the environment
 * `memory-child-fetch.ts` reads and `BENCH_CHECKPOINTS`. Runs agent runs with one MCP tool call
 * each and prints checkpoints (`memory-heap-sampling.ts`), counting besides the platform's
 * objects our own a leak would pile up: MCP sessions, call timers, run channels.
 */
// First: it sets fetch's keep-alive before anything fetches.
import { connectionsOpened, childUrls } from './memory-child-fetch.ts';
import { sampleRuns } from './memory-heap-sampling.ts';
import { Agent, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';

/**
 * A class of `@switchboard/core`, from the module beside the entry this process resolves the
 * package to (the built `dist/` here; `src/` under the source condition). The counted classes
 * must be the very ones the agent uses: importing `src/` while the agent runs `dist/` counted
 * another copy's instances, always 0 (an open MCP session showed as `McpSession 0`).
 */
async function coreClass(path: string, name: string): Promise<{ prototype: object }> {
  const entry = import.meta.resolve('@switchboard/core');
  const extension = entry.endsWith('.ts') ? '.ts' : '.js';
  const module = (await import(new URL(`./${path}${extension}`, entry).href)) as Record<
    string,
    { prototype: object } | undefined
  >;
  const found = module[name];
  if (found === undefined) throw new Error(`${name} is not exported by ${path}`);
  return found;
}

const server = mcpServer({
  url: childUrls.mcpUrl,
  name: 'demo',
  toolFilter: ['read_file', 'get_weather'],
});
const agent = new Agent({
  name: 'bench',
  // The agent's default model retries stay on: should a connection still fail, the run goes on
  // (and the retry is counted and reported).
  model: openaiChatModel({ model: 'tool-loop', baseURL: `${childUrls.modelUrl}/v1` }),
  mcpServers: [server],
});

let modelRetries = 0;

async function oneRun(): Promise<void> {
  const threadId = crypto.randomUUID();
  const run = agent.execute({ threadId, messages: 'What is in notes.txt?' });
  let toolResults = 0;
  for await (const chunk of run.chunks) {
    if (chunk.type === 'tool.result' && chunk.output.isError !== true) toolResults += 1;
    if (chunk.type === 'model.retry') modelRetries += 1;
  }
  const result = await run.result();
  if (result.status !== 'completed' || toolResults !== 1) {
    const reason =
      result.error === undefined ? '' : `: ${result.error.code} ${result.error.message}`;
    throw new Error(`run ${result.status} with ${toolResults} successful tool results${reason}`);
  }
  // Threads are kept by design; dropping each one leaves only what the runtime itself retains.
  await agent.history.deleteThread(threadId);
}

await sampleRuns({
  label: 'memory-growth',
  oneRun,
  kinds: {
    McpSession: await coreClass('mcp/connection/mcp-session', 'McpSession'),
    CallTimer: await coreClass('mcp/call-timer', 'CallTimer'),
    ReplayChannel: await coreClass('internal/replay-channel', 'ReplayChannel'),
  },
  connectionsOpened,
  modelRetries: () => modelRetries,
});
await server.close();
