import { afterEach, describe, expect, it } from 'vitest';
import { startFaultyMcpServer, type FaultyMcpServer } from '@switchboard/fixtures';
import {
  closeScriptedModelServers,
  finish,
  ofType,
  scripted,
  toolMessage,
} from '../agent/agent-test-support.ts';
import { Agent } from '../agent/agent.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { FunctionCallOutputItem } from '../vocabulary/items.ts';
import { legacySseTransport } from '../legacy-sse/index.ts';
import { mcpServer, type McpServer } from './mcp-server.ts';

/**
 * Fault injection against a real (deliberately faulty) MCP server on 127.0.0.1: what a client
 * reports when the server dies, stalls, cuts its stream or sends what it should not.
 */
const started: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((item) => item.close()));
  await closeScriptedModelServers();
});

async function faulty(
  options: Parameters<typeof startFaultyMcpServer>[0] = {},
): Promise<FaultyMcpServer> {
  const server = await startFaultyMcpServer(options);
  started.push(server);
  return server;
}

function client(options: Parameters<typeof mcpServer>[0]): McpServer {
  const server = mcpServer(options);
  started.push(server);
  return server;
}

async function failureOf(promise: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw error;
  }
  throw new Error('expected a SwitchboardError');
}

describe('unknown outcomes are named (outcome_unknown)', () => {
  it('a server that dies after receiving tools/call: outcome_unknown, not connection_refused', async () => {
    const server = await faulty();
    const tools = client({ url: server.url, name: 'faulty' });

    const died = await failureOf(tools.callTool('die', {}));
    expect(server.calls).toEqual(['die']);
    expect(died.code).toBe('outcome_unknown');
    expect(died.message).toMatch(/whether the tool ran is unknown/);
    expect(died.message).not.toMatch(/Is the server running/);
    expect(died.details).toMatchObject({ tool: 'die' });

    // Now the server is gone for good: the next call could not connect, and says so. (A short
    // wait lets the client's connection pool see its kept-alive sockets close.)
    await server.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await failureOf(tools.callTool('echo', {}));
    expect(refused.code).toBe('connection_refused');
    expect(server.calls).toEqual(['die']);
  });

  it('legacy HTTP+SSE: the stream carrying the answers ends after the call arrived: outcome_unknown', async () => {
    const server = await faulty();
    const tools = client({
      url: server.sseUrl,
      name: 'faulty',
      transport: 'sse',
      legacySse: legacySseTransport,
    });
    expect(await tools.callTool('echo', { n: 1 })).toEqual({ text: 'echo: {"n":1}' });
    const died = await failureOf(tools.callTool('die', {}));
    expect(server.calls).toEqual(['echo', 'die']);
    expect(died.code).toBe('outcome_unknown');
  });

  it('an event stream cut after the request went out: outcome_unknown', async () => {
    const server = await faulty();
    const tools = client({ url: server.url, name: 'faulty' });
    const cut = await failureOf(tools.callTool('cut_stream', {}));
    expect(server.calls).toEqual(['cut_stream']);
    expect(cut.code).toBe('outcome_unknown');
  });

  it('reaches the tool.result chunk, the result, history and the model as outcome_unknown', async () => {
    const server = await faulty();
    const { server: modelServer, model } = await scripted([
      { toolCalls: [{ id: 'call_die', name: 'die', arguments: {} }] },
      { text: 'I could not tell whether it ran.' },
    ]);
    const agent = new Agent({
      name: 'faults',
      model,
      mcpServers: [client({ url: server.url, name: 'faulty' })],
    });

    const handle = agent.execute({ messages: 'do it' });
    const { chunks, result } = await finish(handle);

    expect(result.status).toBe('completed');
    const [reported] = ofType(chunks, 'tool.result');
    expect(reported?.output.error?.code).toBe('outcome_unknown');
    const output = result.output.find(
      (item): item is FunctionCallOutputItem => item.type === 'function_call_output',
    );
    expect(output?.output).toMatchObject({ isError: true, error: { code: 'outcome_unknown' } });
    const [stored] = await agent.history.loadRuns(handle.threadId);
    expect(JSON.stringify(stored?.items)).toContain('outcome_unknown');
    expect(toolMessage(modelServer.requests[1]?.messages, 'call_die')).toMatch(
      /whether the tool ran is unknown/,
    );
  });
});

describe('timeoutMs bounds every wait on an MCP server', () => {
  const cases = [
    ['the server/discover probe', { stallDiscover: true }],
    ['initialize', { stallInitialize: true }],
    ['the second page of tools/list', { toolPages: 3, stallToolPage: 1 }],
  ] as const;
  for (const [what, options] of cases) {
    it(`a server that stalls ${what}: listTools fails with timeout after timeoutMs`, async () => {
      const server = await faulty(options);
      const tools = client({ url: server.url, name: 'faulty', timeoutMs: 300 });
      const started = Date.now();
      const failure = await failureOf(tools.listTools());
      const elapsed = Date.now() - started;
      expect(failure.code).toBe('timeout');
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2_500);
      expect(tools.getSnapshot()).toMatchObject({ status: 'error' });
    });
  }

  it('a tool call that stalls fails with timeout after timeoutMs', async () => {
    const server = await faulty();
    const tools = client({ url: server.url, name: 'faulty', timeoutMs: 300 });
    const started = Date.now();
    const failure = await failureOf(tools.callTool('stall', {}));
    expect(failure.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});

describe('content the client does not know, and secrets in server text', () => {
  it('keeps a content block of an unknown type as an opaque part, the rest intact', async () => {
    const server = await faulty();
    const tools = client({ url: server.url, name: 'faulty' });
    const output = await tools.callTool('odd_content', {});
    expect(output.isError).toBeUndefined();
    expect(output.text.split('\n')).toEqual([
      'before',
      '[A "hologram" content block this client cannot show.]',
      'after',
    ]);
    expect(output.parts).toEqual([
      {
        type: 'opaque',
        contentType: 'hologram',
        block: { type: 'hologram', frames: 3, data: 'AAEC' },
      },
    ]);
    expect(output.structuredContent).toEqual({ ok: true });
  });

  const token = 'sekret-token-0123456789';
  const apiKey = 'api-key-abcdefgh';
  const perUser = 'user-token-for-ada-42';

  function leaky(url: string): McpServer {
    return client({
      url,
      name: 'faulty',
      headers: (runContext) => ({
        authorization: `Bearer ${token}`,
        'x-api-key': apiKey,
        'x-user-token': (runContext as { userToken: string }).userToken,
      }),
    });
  }

  function expectNoSecret(text: string): void {
    for (const secret of [token, apiKey, perUser]) expect(text).not.toContain(secret);
  }

  it('scrubs configured header values from errors, error outputs and results', async () => {
    const server = await faulty();
    const tools = leaky(server.url);
    const runContext = { userToken: perUser };

    const rpcError = await tools.callTool('leak_error', {}, { runContext });
    expect(rpcError.isError).toBe(true);
    expect(rpcError.text).toContain('[redacted]');
    expectNoSecret(JSON.stringify(rpcError));

    const result = await tools.callTool('leak_result', {}, { runContext });
    expect(result.text).toContain('[redacted]');
    expectNoSecret(JSON.stringify(result));

    const httpError = await failureOf(tools.callTool('leak_http', {}, { runContext }));
    expect(httpError.code).toBe('http_status');
    expect(httpError.message).toContain('[redacted]');
    expectNoSecret(httpError.message);
  });

  it('scrubs OAuth access tokens the client sent', async () => {
    const server = await faulty();
    const accessToken = 'oauth-access-token-xyz-987654';
    const tools = client({
      url: server.url,
      name: 'faulty',
      authProvider: {
        redirectUrl: 'http://127.0.0.1/callback',
        clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'] },
        clientInformation: () => ({ client_id: 'client' }),
        tokens: () => ({ access_token: accessToken, token_type: 'Bearer' }),
        saveTokens: () => undefined,
        redirectToAuthorization: () => undefined,
        saveCodeVerifier: () => undefined,
        codeVerifier: () => 'verifier',
      },
    });
    const output = await tools.callTool('leak_result', {});
    expect(output.text).toContain('[redacted]');
    expect(output.text).not.toContain(accessToken);
  });

  it('no secret reaches chunks, history or the model in an agent run', async () => {
    const server = await faulty();
    const { server: modelServer, model } = await scripted([
      {
        toolCalls: [
          { id: 'call_error', name: 'leak_error', arguments: {} },
          { id: 'call_result', name: 'leak_result', arguments: {} },
          { id: 'call_http', name: 'leak_http', arguments: {} },
          { id: 'call_progress', name: 'leak_progress', arguments: {} },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'faults', model, mcpServers: [leaky(server.url)] });
    const handle = agent.execute({ messages: 'go', runContext: { userToken: perUser } });
    const { chunks, result } = await finish(handle);

    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'tool.result')).toHaveLength(4);
    const [progress] = ofType(chunks, 'tool.progress');
    expect(progress?.message).toContain('[redacted]');
    expectNoSecret(JSON.stringify(chunks));
    expectNoSecret(JSON.stringify(result));
    expectNoSecret(JSON.stringify(await agent.history.loadRuns(handle.threadId)));
    expectNoSecret(JSON.stringify(modelServer.requests.map((request) => request.body)));
    expect(toolMessage(modelServer.requests[1]?.messages, 'call_http')).toContain('[redacted]');
  });
});
