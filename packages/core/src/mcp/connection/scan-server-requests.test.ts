import { describe, expect, it } from 'vitest';
import { watchAnswerBody } from './answer-body.ts';
import { scanServerRequests, type JsonRpcId } from './scan-server-requests.ts';

/**
 * Runs `chunks`, as an SSE answer, through the body watcher with the scan; returns the bytes
 * that came out and the ids reported.
 */
async function trace(chunks: string[]): Promise<{ text: string; ids: JsonRpcId[] }> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const ids: JsonRpcId[] = [];
  const answer = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  const watched = watchAnswerBody(answer, { onChunk: scanServerRequests((id) => ids.push(id)) });
  const text = await watched.text();
  return { text, ids };
}

const request = (id: JsonRpcId) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'elicitation/create', params: {} });
const notification = JSON.stringify({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 1 },
});
const response = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { content: [{ type: 'text', text: 'the "method" field' }] },
});

describe('scanServerRequests', () => {
  it('reports the server requests before the response, passing the bytes on unchanged', async () => {
    const events = [
      `id: e1\ndata: ${notification}\n\n`,
      `event: message\ndata: ${request(5)}\n\n`,
      `data: ${request('s-6')}\n\n`,
      `data: ${response}\n\n`,
    ];
    const { text, ids } = await trace(events);
    expect(text).toBe(events.join(''));
    expect(ids).toEqual([5, 's-6']);
  });

  it('stops at the response: nothing after it is routed', async () => {
    const { ids } = await trace([`data: ${response}\n\ndata: ${request(7)}\n\n`]);
    expect(ids).toEqual([]);
  });

  it('reads CRLF and CR line ends, a CRLF split across chunks, and multi-line data', async () => {
    const payload = request(8);
    const cut = payload.indexOf(',');
    const { ids } = await trace([
      `data: ${payload.slice(0, cut)}\r`,
      `\ndata:${payload.slice(cut)}\r\n\r`,
      `\ndata: ${request(9)}\r\r`,
      `data: ${request(10).slice(0, 10)}`,
      `${request(10).slice(10)}\n\n`,
    ]);
    expect(ids).toEqual([8, 9, 10]);
  });

  it('ignores an event left incomplete at the end, and payloads that are not JSON', async () => {
    const { ids } = await trace([`data: {not json "method"}\n\ndata: ${request(11)}\n`]);
    expect(ids).toEqual([]);
  });
});
