import { afterEach, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import type OpenAI from 'openai';
import { scriptFromReplies, startScriptedModelServer } from '@switchboard/fixtures';
import type { ScriptedModelServer, ScriptedReply } from '@switchboard/fixtures';
import { readChatCompletionChunks } from './read-chat-completion-chunks.ts';

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A streamed Chat Completions response of the scripted model server for `reply`. */
async function streamedResponse(reply: ScriptedReply): Promise<Response> {
  const server = await startScriptedModelServer({ script: scriptFromReplies([reply]) });
  servers.push(server);
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  expect(response.status).toBe(200);
  return response;
}

/** A response whose body is exactly `pieces`, one read each. */
function responseOf(pieces: readonly (string | Uint8Array)[], onCancel?: () => void): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[next++];
      if (piece === undefined) controller.close();
      else controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
    },
    cancel() {
      onCancel?.();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function readAll(
  response: Response,
  signal = new AbortController().signal,
  onRead: () => void = () => undefined,
): Promise<ChatCompletionChunk[][]> {
  const batches: ChatCompletionChunk[][] = [];
  for await (const batch of readChatCompletionChunks(response, signal, onRead)) batches.push(batch);
  return batches;
}

function contentOf(batches: readonly ChatCompletionChunk[][]): string {
  return batches
    .flat()
    .map((chunk) => chunk.choices[0]?.delta.content ?? '')
    .join('');
}

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}`;

describe('readChatCompletionChunks', () => {
  it('reads every chunk of a long streamed answer in order, finish reason and usage included', async () => {
    const words = Array.from({ length: 2_000 }, (_, index) => `w${index}`).join(' ');
    const response = await streamedResponse({
      text: words,
      usage: { promptTokens: 3, completionTokens: 2_000 },
    });
    let reads = 0;
    const batches = await readAll(response, new AbortController().signal, () => (reads += 1));
    expect(contentOf(batches)).toBe(words);
    const chunks = batches.flat();
    expect(chunks.some((one) => one.choices[0]?.finish_reason === 'stop')).toBe(true);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(2_000);
    // One sign of life per read, the end of the body included; never an empty batch.
    expect(reads).toBeGreaterThanOrEqual(batches.length + 1);
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
  });

  it('hands out the chunks before an error event, then throws it as the SDK does (APIError, no status)', async () => {
    const response = await streamedResponse({
      text: 'one two three four',
      streamError: { afterChunks: 3, type: 'server_error', message: 'Overloaded' },
    });
    const batches: ChatCompletionChunk[][] = [];
    const reading = (async () => {
      for await (const batch of readChatCompletionChunks(
        response,
        new AbortController().signal,
        () => undefined,
      )) {
        batches.push(batch);
      }
    })();
    const error = await reading.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBeUndefined();
    expect((error as APIError).message).toContain('Overloaded');
    // The first of the three chunks is the assistant role's.
    expect(contentOf(batches)).toBe('one two ');
  });

  it('joins events split across reads (a multi-byte character too), CRLF lines, and a last event without its blank line', async () => {
    const euro = new TextEncoder().encode(chunk('5 €'));
    const cut = euro.length - 3; // inside the euro sign's three bytes
    const response = responseOf([
      `${chunk('a')}\n\n${chunk('b').slice(0, 9)}`,
      `${chunk('b').slice(9)}\r\n\r\n`,
      ': a comment\n\n',
      euro.slice(0, cut),
      euro.slice(cut),
      '\n\n',
      chunk('c'),
    ]);
    expect(contentOf(await readAll(response))).toBe('ab5 €c');
  });

  it('ignores everything after [DONE]', async () => {
    const response = responseOf([`${chunk('a')}\n\ndata: [DONE]\n\n${chunk('late')}\n\n`]);
    expect(contentOf(await readAll(response))).toBe('a');
  });

  it('throws for data that is not JSON, after the chunks before it', async () => {
    const response = responseOf([`${chunk('a')}\n\ndata: {not json\n\n${chunk('b')}\n\n`]);
    const batches: ChatCompletionChunk[][] = [];
    await expect(async () => {
      for await (const batch of readChatCompletionChunks(
        response,
        new AbortController().signal,
        () => undefined,
      )) {
        batches.push(batch);
      }
    }).rejects.toThrow(SyntaxError);
    expect(contentOf(batches)).toBe('a');
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const response = responseOf(
      [`${chunk('a')}\n\n`, `${chunk('b')}\n\n`, `${chunk('c')}\n\n`],
      () => (cancelled = true),
    );
    for await (const batch of readChatCompletionChunks(
      response,
      new AbortController().signal,
      () => undefined,
    )) {
      expect(contentOf([batch])).toBe('a');
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('ends quietly when the request is aborted mid-stream (the caller tells why)', async () => {
    const controller = new AbortController();
    const server = await startScriptedModelServer({
      script: scriptFromReplies([{ text: 'one two three four five', delayMs: 200 }]),
    });
    servers.push(server);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [], stream: true }),
      signal: controller.signal,
    });
    const seen: string[] = [];
    for await (const batch of readChatCompletionChunks(response, controller.signal, () => {})) {
      seen.push(contentOf([batch]));
      controller.abort();
    }
    expect(seen.join('')).not.toBe('one two three four five');
    expect(controller.signal.aborted).toBe(true);
  });
});
