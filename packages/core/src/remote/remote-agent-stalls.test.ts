import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { remoteAgent } from './remote-agent.ts';

/**
 * `remoteAgent` against servers that misbehave on the wire (real HTTP on 127.0.0.1): the
 * promises "every client request has a time limit" and "a broken server ends the handle, it
 * is not asked again and again" (docs/scale.md, "Running the agent on the server").
 */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<string> {
  const server = createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent/`;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('remoteAgent against a misbehaving server', () => {
  it('gives up on a JSON answer whose body stalls after its headers, with a timeout', async () => {
    // Headers and half a body, then nothing: a proxy that hangs, a server stuck mid-answer.
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[{"runId":');
    });
    const remote = remoteAgent({ url, timeoutMs: 300 });
    for (const read of [
      () => remote.loadThread('t1'),
      () => remote.history.listThreads(),
      () => remote.history.loadBranchSelection('t1'),
    ]) {
      const error = await failureOf(read());
      expect(isSwitchboardError(error, 'timeout')).toBe(true);
    }
  });

  it("gives up on an error answer whose body stalls, with a timeout rather than the server's silence", async () => {
    const url = await serve((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.write('{"error":');
    });
    const remote = remoteAgent({ url, timeoutMs: 300 });
    const error = await failureOf(remote.history.renameThread('t1', 'Renamed'));
    expect(isSwitchboardError(error, 'timeout')).toBe(true);
  });

  it('ends a run whose event stream is not an event stream (a fallback page) instead of asking again forever', async () => {
    let streamRequests = 0;
    const url = await serve((request, response) => {
      if (request.method === 'POST') {
        request.resume();
        request.on('end', () => {
          response.writeHead(202, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ handleId: 'h', threadId: 't1' }));
        });
        return;
      }
      // A single-page app's fallback: every unknown GET is its index page, status 200.
      streamRequests += 1;
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>App</title>');
    });
    const remote = remoteAgent({ url, reconnectDelayMs: 1 });
    const result = await remote.execute({ threadId: 't1', messages: 'Hello' }).result();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('invalid_response');
    expect(streamRequests).toBe(1);
  });
});
