/**
 * Child process (forked by `start-bench-servers.ts`): the demo MCP server and the scripted model
 * server, both on 127.0.0.1, in their own process so that the client under test does not share
 * its event loop (or its heap, for the memory benchmark) with them.
 *
 * Messages from the parent: `{ type: 'counts' }` → `{ type: 'counts', demo, model, byMethod }`
 * (requests received so far); `{ type: 'reset' }` clears the logs. Exits when the IPC channel
 * closes.
 *
 * The scripted model's behaviour is chosen by the request's `model` name (the only thing a
 * client sends that a script can key on without state):
 * - `text:N` or `text:N:D` → an answer of N words, streamed one word per delta, D ms between
 *   deltas (default 0);
 * - `tool-loop` → first a call to the offered tool ending in `read_file`, then, once the last
 *   message is a tool result, the text `Done.`;
 * - anything else → the library's default script.
 */
import {
  defaultModelScript,
  startDemoServer,
  startScriptedModelServer,
  type ModelScript,
} from '@switchboard/fixtures';
import { benchText } from './bench-text.ts';

const TOOL_COUNT = Number(process.env['BENCH_TOOL_COUNT'] ?? '1000');
const PAGE_SIZE = Number(process.env['BENCH_PAGE_SIZE'] ?? '20');
const KEEP_ALIVE_MS =
  process.env['BENCH_KEEP_ALIVE_MS'] === undefined
    ? undefined
    : Number(process.env['BENCH_KEEP_ALIVE_MS']);

const benchScript: ModelScript = (request) => {
  const model = request.model;
  if (model.startsWith('text:')) {
    const [, words, delayMs] = model.split(':');
    return { text: benchText(Number(words)), delayMs: Number(delayMs ?? '0') };
  }
  if (model === 'tool-loop') {
    if (request.messages.at(-1)?.role === 'tool') return { text: 'Done.' };
    const name = request.tools?.find((tool) => tool.function.name.endsWith('read_file'))?.function
      .name;
    if (name === undefined) return { text: 'No read_file tool was offered.' };
    return { toolCalls: [{ name, arguments: { path: 'notes.txt' } }] };
  }
  return defaultModelScript(request);
};

const keepAlive = KEEP_ALIVE_MS === undefined ? {} : { keepAliveTimeoutMs: KEEP_ALIVE_MS };
const demo = await startDemoServer({ toolCount: TOOL_COUNT, pageSize: PAGE_SIZE, ...keepAlive });
const model = await startScriptedModelServer({ script: benchScript, ...keepAlive });

function counts(): Record<string, unknown> {
  const byMethod: Record<string, number> = {};
  for (const entry of demo.log) {
    const key = `${entry.method} ${entry.rpcMethod ?? ''}`.trim();
    byMethod[key] = (byMethod[key] ?? 0) + 1;
  }
  return { type: 'counts', demo: demo.log.length, model: model.requests.length, byMethod };
}

process.on('message', (message: { type?: string }) => {
  if (message.type === 'counts') {
    process.send?.(counts());
  } else if (message.type === 'reset') {
    demo.log.length = 0;
    model.requests.length = 0;
    process.send?.({ type: 'reset' });
  }
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.allSettled([demo.close(), model.close()]);
  process.exit(0);
}
process.on('disconnect', () => void stop());
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());

process.send?.({
  type: 'ready',
  demo: { url: demo.url, modernUrl: demo.modernUrl, legacyUrl: demo.legacyUrl },
  model: { url: model.url },
  toolCount: TOOL_COUNT,
  pageSize: PAGE_SIZE,
});
