import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createSessionFetch } from './connection/session-fetch.ts';
import { ElicitationRouter } from './elicitation-router.ts';

const sessionA = {} as Client;
const sessionB = {} as Client;

/** The POST body of a `tools/call` request `id` carrying the call key `callKey`. */
function toolsCallBody(id: number, callKey: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'book', _meta: { 'dev.switchboard/callId': callKey } },
  });
}

/** A session fetch on `sessionA` whose every POST is answered with the SSE `events`. */
function sseSessionFetch(router: ElicitationRouter, events: string) {
  return createSessionFetch({
    baseFetch: async () =>
      new Response(events, { headers: { 'content-type': 'text/event-stream' } }),
    headers: {},
    blockStandaloneGet: false,
    onServerRequest: (callKey, id) => router.noteServerRequest(sessionA, callKey, id),
  });
}

describe('ElicitationRouter', () => {
  it('a request on a session with one call running belongs to that call, per session', () => {
    const router = new ElicitationRouter();
    const detachA = router.attach(sessionA, 'call-a#1');
    router.attach(sessionB, 'call-b#2');
    expect(router.callFor(sessionA, 0)).toBe('call-a#1');
    expect(router.callFor(sessionB, 0)).toBe('call-b#2');
    detachA();
    expect(router.callFor(sessionA, 0)).toBeUndefined();
  });

  it('with several calls on one session and nothing tracing the request, nobody gets it', () => {
    const router = new ElicitationRouter();
    router.attach(sessionA, 'first#1');
    router.attach(sessionA, 'second#2');
    expect(router.callFor(sessionA, 7)).toBeUndefined();
  });

  it('learns request ids from the SSE answer of the tools/call that carried the call key', async () => {
    const router = new ElicitationRouter();
    router.attach(sessionA, 'first#1');
    router.attach(sessionA, 'second#2');
    const events =
      'event: message\ndata: {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{}}\n\n' +
      'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n\n';
    const sessionFetch = sseSessionFetch(router, events);
    const body = toolsCallBody(1, 'second#2');
    const response = await sessionFetch('http://127.0.0.1/mcp', { method: 'POST', body });
    expect(await response.text()).toBe(events); // the bytes pass unchanged
    expect(router.callFor(sessionA, 5)).toBe('second#2');
    // The same id on another session is another request.
    expect(router.callFor(sessionB, 5)).toBeUndefined();
  });

  it('learns nothing from the SSE answer of a request without the call key', async () => {
    const router = new ElicitationRouter();
    router.attach(sessionA, 'first#1');
    router.attach(sessionA, 'second#2');
    const events = 'data: {"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}\n\n';
    const sessionFetch = sseSessionFetch(router, events);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    await (await sessionFetch('http://127.0.0.1/mcp', { method: 'POST', body })).text();
    expect(router.callFor(sessionA, 9)).toBeUndefined();
  });

  it('learns nothing from a 2026-07-28 answer (that revision has no server requests)', async () => {
    const router = new ElicitationRouter();
    router.attach(sessionA, 'first#1');
    router.attach(sessionA, 'second#2');
    const events =
      'data: {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{}}\n\n' +
      'data: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n\n';
    const sessionFetch = sseSessionFetch(router, events);
    const body = toolsCallBody(1, 'second#2');
    const headers = new Headers({ 'mcp-protocol-version': '2026-07-28' });
    const response = await sessionFetch('http://127.0.0.1/mcp', { method: 'POST', body, headers });
    expect(await response.text()).toBe(events);
    expect(router.callFor(sessionA, 5)).toBeUndefined();
  });
});
