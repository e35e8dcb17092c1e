import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingServer, type EverythingServer } from '@switchboard/fixtures';
import { findFreePort } from '@switchboard/fixtures';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer } from './mcp-server.ts';

/** A fetch that records method and headers of every request it forwards. */
function recordingFetch() {
  const requests: { method: string; headers: Headers }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    requests.push({ method: init?.method ?? 'GET', headers: new Headers(init?.headers) });
    return await fetch(input, init);
  };
  return { requests, fetchImpl };
}

describe('mcpServer against @modelcontextprotocol/server-everything (Streamable HTTP)', () => {
  let everything: EverythingServer;
  beforeAll(async () => {
    everything = await startEverythingServer();
  });
  afterAll(async () => {
    await everything.close();
  });

  it('connects in the 2025 era, lists every tool and calls get-sum', async () => {
    const server = mcpServer({ url: everything.url, name: 'everything' });
    try {
      const tools = await server.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toContain('get-sum');
      expect(names).toContain('echo');
      const snapshot = server.getSnapshot();
      expect(snapshot.status).toBe('connected');
      expect(snapshot.protocolEra).toBe('legacy');
      expect(snapshot.protocolVersion).toBe('2025-11-25');
      expect(snapshot.tools).toHaveLength(tools.length);

      const output = await server.callTool('get-sum', { a: 2, b: 3 });
      expect(output.text).toBe('The sum of 2 and 3 is 5.');
      expect(output.isError).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('keeps annotations as sent and runs a listed tool through execute()', async () => {
    const server = mcpServer({ url: everything.url, name: 'everything' });
    try {
      const tools = await server.listTools();
      const echo = tools.find((tool) => tool.name === 'echo');
      expect(echo?.server).toBe('everything');
      expect(echo?.originalName).toBe('echo');
      const controller = new AbortController();
      const output = await echo!.execute(
        { message: 'hi' },
        {
          signal: controller.signal,
          callId: 'c1',
          threadId: 't',
          runId: 'r',
          runContext: undefined,
          reportProgress: () => undefined,
          requestInput: () => Promise.reject(new Error('no human here')),
          interrupt: (request, resumeState) => ({
            kind: 'switchboard.interrupt',
            request,
            resumeState,
          }),
        },
      );
      expect(output).toMatchObject({ text: 'Echo: hi' });
    } finally {
      await server.close();
    }
  });

  it('maps image blocks to parts and isError results to error outputs', async () => {
    const server = mcpServer({ url: everything.url });
    try {
      const image = await server.callTool('get-tiny-image', {});
      expect(image.parts?.[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
      const invalid = await server.callTool('echo', {});
      expect(invalid.isError).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('sends headers on every request and ends the session with DELETE on close()', async () => {
    const { requests, fetchImpl } = recordingFetch();
    const server = mcpServer({
      url: everything.url,
      headers: { 'x-switchboard-test': 'secret-value' },
      fetch: fetchImpl,
    });
    await server.listTools();
    await server.close();
    expect(requests.length).toBeGreaterThan(2);
    for (const request of requests) {
      expect(request.headers.get('x-switchboard-test')).toBe('secret-value');
    }
    const deletes = requests.filter((request) => request.method === 'DELETE');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.headers.get('mcp-session-id')).toBeTruthy();
    expect(server.getSnapshot().status).toBe('closed');
  });

  it('reports a refused connection with a clear code, without leaking headers', async () => {
    const port = await findFreePort();
    const server = mcpServer({
      url: `http://127.0.0.1:${port}/mcp?token=abc`,
      name: 'down',
      headers: { authorization: 'Bearer top-secret' },
    });
    const error = await server.listTools().catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'connection_refused')).toBe(true);
    expect(String((error as Error).message)).toContain(`127.0.0.1:${port}/mcp`);
    expect(String((error as Error).message)).not.toContain('top-secret');
    expect(String((error as Error).message)).not.toContain('token=abc');
    expect(server.getSnapshot().status).toBe('error');
  });
});
