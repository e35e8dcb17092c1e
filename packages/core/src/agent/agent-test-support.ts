/**
 * Helpers the agent tests share: scripted models over HTTP, draining a run, and assertions on
 * chunks, requests and items. Test-only: not exported from the package.
 */
import { expect } from 'vitest';
import type { Item } from '../vocabulary/items.ts';
import type { Model } from '../model/model.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import {
  scriptFromReplies,
  type ChatRequestMessage,
  type ModelScript,
  type ScriptedReply,
} from '@switchboard/fixtures';
import { startScriptedModelServer, type ScriptedModelServer } from '@switchboard/fixtures';
import type { Chunk } from './chunks.ts';
import type { RunHandle } from './run-result.ts';

const servers: ScriptedModelServer[] = [];

/**
 * A scripted model server answering `replies` in order (or as `replies` says, given a
 * {@link ModelScript}), and a model speaking to it over HTTP. The server stays up until
 * {@link closeScriptedModelServers}.
 */
export async function scripted(
  replies: ScriptedReply[] | ModelScript,
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const script = typeof replies === 'function' ? replies : scriptFromReplies(replies);
  const server = await startScriptedModelServer({ script });
  servers.push(server);
  const model = openaiChatModel({
    baseURL: `${server.url}/v1`,
    apiKey: 'x',
    model: 'scripted',
    maxRetries: 0,
  });
  return { server, model };
}

/** Closes every server {@link scripted} started; meant for `afterEach`. */
export async function closeScriptedModelServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** Every chunk of `handle`, in order, once its stream has ended. */
export async function collect(handle: RunHandle): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of handle.chunks) chunks.push(chunk);
  return chunks;
}

/** Runs `handle` to its end (`collectRun` of the public testing kit), and the chunks of one type. */
export { collectRun as finish, ofType } from '../testing/collect-run.ts';

/** The `tool` message answering `callId` in a recorded request (expects there is one). */
export function toolMessage(
  messages: readonly ChatRequestMessage[] | undefined,
  callId: string,
): string {
  const found = (messages ?? []).find(
    (message) => message.role === 'tool' && message.tool_call_id === callId,
  );
  expect(found, `a tool message for ${callId}`).toBeDefined();
  return String(found?.content);
}

/**
 * docs/architecture.md, "Invariants": every function_call has exactly one function_call_output,
 * after it.
 */
export function expectEveryCallAnsweredOnce(items: readonly Item[]): void {
  items.forEach((item, index) => {
    if (item.type !== 'function_call') return;
    const answers = items.filter(
      (other) => other.type === 'function_call_output' && other.callId === item.callId,
    );
    expect(answers, `outputs for ${item.callId}`).toHaveLength(1);
    expect(items.indexOf(answers[0] as Item)).toBeGreaterThan(index);
  });
}

/** No function_call_output without its function_call. */
export function expectNoOrphanOutputs(items: readonly Item[]): void {
  const orphans = items.filter(
    (item) =>
      item.type === 'function_call_output' &&
      !items.some((call) => call.type === 'function_call' && call.callId === item.callId),
  );
  expect(orphans).toEqual([]);
}

/** A promise and the function that resolves it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
