import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.ts';
import { mockModel, textTurn } from '../testing/mock-model.ts';
import { agentRequestHandler } from './agent-request-handler.ts';

/**
 * Where a chunk stream resumes from, as `agentRequestHandler` reads it from `?after=` and
 * `Last-Event-ID`: a value that names no sequence (empty, not a whole number) replays the run
 * from its first chunk rather than skipping any.
 */
const BASE = 'http://agent.test/agent/';

async function startedRun() {
  const agent = new Agent({ name: 'server', model: mockModel([textTurn('Once.')]) });
  const handler = agentRequestHandler(agent, { basePath: '/agent' });
  const body = JSON.stringify({ handleId: 'h1', input: { threadId: 't1', messages: 'Hi' } });
  const started = await handler(new Request(`${BASE}runs`, { method: 'POST', body }));
  expect(started.status).toBe(202);
  return handler;
}

const ids = (text: string) => text.match(/^id: \d+$/gm) ?? [];

describe('agentRequestHandler: the sequence a chunk stream resumes after', () => {
  it('replays every chunk for an empty or meaningless after, and resumes after a real one', async () => {
    const handler = await startedRun();
    const read = async (query: string, headers: Record<string, string> = {}) =>
      await (await handler(new Request(`${BASE}runs/h1/chunks${query}`, { headers }))).text();
    const all = ids(await read(''));
    expect(all).toEqual(['id: 0', 'id: 1', 'id: 2', 'id: 3']);
    expect(ids(await read('?after='))).toEqual(all);
    expect(ids(await read('?after=%20'))).toEqual(all);
    expect(ids(await read('?after=abc'))).toEqual(all);
    expect(ids(await read('', { 'last-event-id': '' }))).toEqual(all);
    expect(ids(await read('?after=1'))).toEqual(['id: 2', 'id: 3']);
    expect(ids(await read('', { 'last-event-id': '2' }))).toEqual(['id: 3']);
  });
});
