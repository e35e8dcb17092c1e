/**
 * Fetch as both children of benchmark 10 use it (`memory-growth-child.ts`, ours, and
 * `memory-growth-control-child.ts`, the raw MCP client + `openai` SDK): the servers' URLs from the
 * environment, idle connections kept open as long as the servers keep theirs, and a count of the
 * connections opened. Import it before anything that fetches.
 */
import { subscribe } from 'node:diagnostics_channel';

const mcpUrl = process.env['BENCH_MCP_URL'];
const modelUrl = process.env['BENCH_MODEL_URL'];
const keepAliveMs = Number(process.env['BENCH_KEEP_ALIVE_MS']);
if (mcpUrl === undefined || modelUrl === undefined || !(keepAliveMs > 0)) {
  throw new Error('BENCH_MCP_URL, BENCH_MODEL_URL and BENCH_KEEP_ALIVE_MS are required');
}

/** The demo MCP server's 2026-07-28 endpoint and the scripted model server's base URL. */
export const childUrls = { mcpUrl, modelUrl };

/**
 * Keeps fetch's idle connections open for `ms` (its default is 4 s, or the server's
 * `Keep-Alive: timeout=` less 2 s; the demo server's event-stream answers send none). A
 * checkpoint takes seconds, so with the defaults the connections expired during checkpoints, at
 * random ones, and the runs after them took paths a steady run does not: a socket torn down with
 * an error (Node's stream `destroy` reads the error's `stack`, and V8 then builds and keeps, once
 * per script, the line-end table of every script on that stack: ~170 KB for undici's bundle,
 * `net`, web streams and timers), a reconnect, a model call retried. Whichever checkpoint saw the
 * first of them after the baseline showed a one-off step of up to ~250 KiB as "growth".
 *
 * Node's fetch reads its dispatcher from this global symbol on every request (the one
 * `undici.setGlobalDispatcher` sets); the replacement is the same class with longer timeouts.
 */
function keepFetchConnectionsAlive(ms: number): void {
  new Headers(); // loads Node's bundled undici, which installs its global dispatcher
  const key = Symbol.for('undici.globalDispatcher.1');
  const current: unknown = Reflect.get(globalThis, key);
  if (typeof current !== 'object' || current === null) {
    throw new Error("Node's fetch dispatcher was not found");
  }
  const Dispatcher = current.constructor as new (options: object) => object;
  Reflect.set(globalThis, key, new Dispatcher({ keepAliveTimeout: ms, keepAliveMaxTimeout: ms }));
}
keepFetchConnectionsAlive(keepAliveMs);

let opened = 0;
subscribe('undici:client:connected', () => (opened += 1));

/** HTTP connections fetch opened so far (Node's `undici:client:connected` channel). */
export const connectionsOpened = (): number => opened;
