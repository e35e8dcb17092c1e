import {
  Client,
  ProtocolError,
  SSEClientTransport,
  SdkHttpError,
  StreamableHTTPClientTransport,
  isInputRequiredResult,
  specTypeSchemas,
  withInputRequired,
} from '@modelcontextprotocol/client';
import type {
  CallToolResult,
  ClientOptions,
  InputRequiredResult,
  Progress,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoServer } from './start-demo-server.ts';
import type { DemoServer, DemoServerOptions } from './start-demo-server.ts';

const servers: DemoServer[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options?: DemoServerOptions): Promise<DemoServer> {
  const server = await startDemoServer(options);
  servers.push(server);
  return server;
}

function newClient(options: ClientOptions = {}): Client {
  const client = new Client(
    { name: 'demo-server-test', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      versionNegotiation: { mode: 'auto' },
      ...options,
    },
  );
  clients.push(client);
  return client;
}

async function connectStreamable(
  url: string,
  options: ClientOptions = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = newClient(options);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

function textOf(result: CallToolResult | InputRequiredResult): string {
  if (isInputRequiredResult(result)) return '';
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** Waits until `predicate` holds (polling every 10 ms) or fails after `timeoutMs`. */
async function waitFor(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for a condition.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const callToolSchema = withInputRequired(specTypeSchemas.CallToolResult);

describe('startDemoServer: eras and tools', () => {
  it('binds 127.0.0.1 and the modern endpoint negotiates the 2026-07-28 era', async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.modernUrl).toBe(`${server.url}/modern/mcp`);
    expect(server.legacyUrl).toBe(`${server.url}/legacy/mcp`);
    expect(server.legacySseUrl).toBe(`${server.url}/legacy/sse`);

    const { client } = await connectStreamable(server.modernUrl);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(
      server.log.some(
        (entry) => entry.path === '/modern/mcp' && entry.rpcMethod === 'server/discover',
      ),
    ).toBe(true);
  });

  it('the legacy endpoint negotiates 2025-11-25 with a session id', async () => {
    const server = await start();
    const { client, transport } = await connectStreamable(server.legacyUrl);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const initialize = server.log.find((entry) => entry.rpcMethod === 'initialize');
    expect(initialize).toMatchObject({ method: 'POST', path: '/legacy/mcp', status: 200 });
    await client.listTools();
    expect(
      server.log.some(
        (entry) => entry.rpcMethod === 'tools/list' && entry.sessionId === transport.sessionId,
      ),
    ).toBe(true);
  });

  it.each(['modern', 'legacy'] as const)(
    'lists every tool of the %s endpoint across pages of 20',
    async (era) => {
      const server = await start();
      const url = era === 'modern' ? server.modernUrl : server.legacyUrl;
      const path = new URL(url).pathname;
      const { client } = await connectStreamable(url);
      const { tools } = await client.listTools();
      expect(tools.length).toBe(168);
      const names = tools.map((tool) => tool.name);
      expect(new Set(names).size).toBe(168);
      expect(names.slice(0, 8)).toEqual([
        'book_table',
        'connect_account',
        'slow_count',
        'delete_file',
        'read_file',
        'get_weather',
        'fail',
        'throw_error',
      ]);
      expect(names).toContain('tool_000');
      expect(names).toContain('tool_159');
      const pages = server.log.filter(
        (entry) => entry.path === path && entry.rpcMethod === 'tools/list',
      );
      expect(pages.length).toBeGreaterThanOrEqual(8);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('delete_file')?.annotations).toMatchObject({
        destructiveHint: true,
        readOnlyHint: false,
      });
      expect(byName.get('read_file')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get('get_weather')?.outputSchema?.properties).toHaveProperty(
        'temperatureCelsius',
      );
      const descriptions = new Set(
        tools.filter((tool) => tool.name.startsWith('tool_')).map((tool) => tool.description),
      );
      expect(descriptions.size).toBe(160);

      const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
      expect(weather.structuredContent).toMatchObject({ city: 'Oslo' });
      const filler = await client.callTool({ name: 'tool_042', arguments: { query: 'late' } });
      expect(textOf(filler)).toContain('tool_042');
    },
  );

  it.each(['modern', 'legacy'] as const)(
    '%s: fail gives isError, throw_error a JSON-RPC error, bad arguments isError',
    async (era) => {
      const server = await start({ toolCount: 0 });
      const { client } = await connectStreamable(
        era === 'modern' ? server.modernUrl : server.legacyUrl,
      );
      const failed = await client.callTool({ name: 'fail', arguments: {} });
      expect(failed.isError).toBe(true);
      const thrown: unknown = await client
        .callTool({ name: 'throw_error', arguments: { message: 'boom' } })
        .catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(ProtocolError);
      expect(thrown).toMatchObject({ code: -32603, message: expect.stringContaining('boom') });
      const invalid = await client.callTool({ name: 'delete_file', arguments: { path: 7 } });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain('Invalid arguments for delete_file');
    },
  );

  it.each(['modern', 'legacy'] as const)('%s: slow_count reports progress', async (era) => {
    const server = await start({ toolCount: 0 });
    const { client } = await connectStreamable(
      era === 'modern' ? server.modernUrl : server.legacyUrl,
    );
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'slow_count', arguments: { count: 3, delayMs: 20 } },
      { onprogress: (update) => progress.push(update) },
    );
    expect(textOf(result)).toBe('Counted to 3.');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'Counted 1 of 3' },
      { progress: 2, total: 3, message: 'Counted 2 of 3' },
      { progress: 3, total: 3, message: 'Counted 3 of 3' },
    ]);
  });

  it('serves the same tools over the legacy HTTP+SSE transport', async () => {
    const server = await start();
    const client = newClient();
    await client.connect(new SSEClientTransport(new URL(server.legacySseUrl)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const { tools } = await client.listTools();
    expect(tools.length).toBe(168);
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(textOf(result)).toContain('Contents of notes.txt');
    expect(server.log.some((entry) => entry.path === '/legacy/messages' && entry.sessionId)).toBe(
      true,
    );
  });
});

describe('startDemoServer: elicitation', () => {
  it('MRTR book_table: input_required, then a brand-new client completes it', async () => {
    const server = await start({ toolCount: 0 });
    const manual: ClientOptions = { inputRequired: { autoFulfill: false } };
    const first = await connectStreamable(server.modernUrl, manual);
    const call = { name: 'book_table', arguments: { restaurant: 'Chez Ada' } };
    const pending = await first.client.request(
      { method: 'tools/call', params: call },
      callToolSchema,
      { allowInputRequired: true },
    );
    if (!isInputRequiredResult(pending)) throw new Error('expected input_required');
    const request = pending.inputRequests?.['confirm'];
    expect(request?.method).toBe('elicitation/create');
    expect(request?.params).toMatchObject({
      mode: 'form',
      requestedSchema: {
        type: 'object',
        required: ['name', 'date'],
        properties: {
          partySize: { type: 'integer', minimum: 1, maximum: 20, default: 2 },
          date: { type: 'string', format: 'date' },
          seating: { oneOf: [{ const: 'indoor' }, { const: 'outdoor' }] },
          confirm: { type: 'boolean' },
        },
      },
    });
    const requestState = pending.requestState;
    if (requestState === undefined) throw new Error('expected a requestState');
    const [, payload] = requestState.split('.');
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'))).toMatchObject({
      p: { tool: 'book_table', arguments: { restaurant: 'Chez Ada' } },
    });
    await first.client.close();

    const second = await connectStreamable(server.modernUrl, manual);
    const answer = {
      name: 'Grace',
      partySize: 4,
      date: '2026-12-24',
      seating: 'outdoor',
      confirm: true,
    };
    const done = await second.client.request(
      {
        method: 'tools/call',
        params: {
          ...call,
          inputResponses: { confirm: { action: 'accept', content: answer } },
          requestState,
        },
      },
      callToolSchema,
      { allowInputRequired: true },
    );
    expect(textOf(done)).toBe(
      'Booked a table at Chez Ada for 4 guests on 2026-12-24 (outdoor) under Grace.',
    );

    const declined = await second.client.request(
      {
        method: 'tools/call',
        params: { ...call, inputResponses: { confirm: { action: 'decline' } }, requestState },
      },
      callToolSchema,
      { allowInputRequired: true },
    );
    expect(textOf(declined)).toBe('The user declined the booking; nothing was booked.');

    await expect(
      second.client.request(
        {
          method: 'tools/call',
          params: {
            ...call,
            inputResponses: { confirm: { action: 'decline' } },
            requestState: `${requestState}x`,
          },
        },
        callToolSchema,
        { allowInputRequired: true },
      ),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('MRTR connect_account asks for a URL; the page says Authorized; accept connects', async () => {
    const server = await start({ toolCount: 0 });
    const { client } = await connectStreamable(server.modernUrl, {
      inputRequired: { autoFulfill: false },
    });
    const call = { name: 'connect_account', arguments: { service: 'calendar' } };
    const pending = await client.request({ method: 'tools/call', params: call }, callToolSchema, {
      allowInputRequired: true,
    });
    if (!isInputRequiredResult(pending)) throw new Error('expected input_required');
    const params = pending.inputRequests?.['authorize']?.params as
      { mode?: string; url?: string; message?: string } | undefined;
    expect(params?.mode).toBe('url');
    expect(params?.url).toMatch(
      new RegExp(
        `^${server.url.replaceAll('.', '\\.')}/demo/authorize\\?elicitation=[0-9a-f-]{36}$`,
      ),
    );
    const page = await fetch(params?.url ?? '');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Authorized');

    const done = await client.request(
      {
        method: 'tools/call',
        params: {
          ...call,
          inputResponses: { authorize: { action: 'accept' } },
          requestState: pending.requestState,
        },
      },
      callToolSchema,
      { allowInputRequired: true },
    );
    expect(textOf(done)).toBe(
      'Connected the calendar account (the authorization page was visited).',
    );
  });

  it('MRTR auto mode fulfils book_table through the elicitation handler', async () => {
    const server = await start({ toolCount: 0 });
    const client = newClient();
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada', date: '2027-01-02', confirm: true },
    }));
    await client.connect(new StreamableHTTPClientTransport(new URL(server.modernUrl)));
    const result = await client.callTool({ name: 'book_table', arguments: {} });
    expect(textOf(result)).toBe(
      "Booked a table at Luigi's for 2 guests on 2027-01-02 (indoor) under Ada.",
    );
  });

  it('legacy book_table pushes elicitation/create; accept and decline give the right texts', async () => {
    const server = await start({ toolCount: 0 });
    const client = newClient();
    const seen: unknown[] = [];
    let answer: 'accept' | 'decline' = 'accept';
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params);
      return answer === 'accept'
        ? {
            action: 'accept',
            content: {
              name: 'Linus',
              partySize: 3,
              date: '2026-12-31',
              seating: 'indoor',
              confirm: true,
            },
          }
        : { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.legacyUrl)));
    expect(client.getProtocolEra()).toBe('legacy');

    const booked = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Noma' } });
    expect(textOf(booked)).toBe(
      'Booked a table at Noma for 3 guests on 2026-12-31 (indoor) under Linus.',
    );
    expect(seen[0]).toMatchObject({
      message: expect.stringContaining('Noma'),
      requestedSchema: { required: ['name', 'date'] },
    });

    answer = 'decline';
    const declined = await client.callTool({ name: 'book_table', arguments: {} });
    expect(textOf(declined)).toBe('The user declined the booking; nothing was booked.');
  });

  it('legacy connect_account pushes a URL-mode elicitation with an elicitationId', async () => {
    const server = await start({ toolCount: 0 });
    const client = newClient();
    const completed: unknown[] = [];
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      completed.push(notification.params);
    });
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url?: string; elicitationId?: string };
      expect(params.mode).toBe('url');
      const page = await fetch(params.url ?? '');
      expect(await page.text()).toContain('Authorized');
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.legacyUrl)));
    const result = await client.callTool({ name: 'connect_account', arguments: {} });
    expect(textOf(result)).toBe(
      'Connected the calendar account (the authorization page was visited).',
    );
    await waitFor(() => completed.length === 1);
    expect(completed[0]).toMatchObject({ elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('legacy connect_account without the url capability fails with -32042', async () => {
    const server = await start({ toolCount: 0 });
    const { client } = await connectStreamable(server.legacyUrl, {
      capabilities: { elicitation: { form: {} } },
    });
    await expect(client.callTool({ name: 'connect_account', arguments: {} })).rejects.toMatchObject(
      { code: -32042 },
    );
  });
});

describe('startDemoServer: faults and control', () => {
  it('expireSessions makes the next legacy request fail with 404', async () => {
    const server = await start({ toolCount: 0 });
    const { client, transport } = await connectStreamable(server.legacyUrl);
    await client.listTools();
    server.faults.expireSessions();
    const error: unknown = await client
      .listTools({}, { cacheMode: 'bypass' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SdkHttpError);
    expect((error as SdkHttpError).data).toMatchObject({ status: 404 });
    expect(
      server.log.some((entry) => entry.sessionId === transport.sessionId && entry.status === 404),
    ).toBe(true);
  });

  it('getStream 405 refuses the standalone GET; the client still works', async () => {
    const server = await start({ toolCount: 0 });
    server.faults.getStream = 405;
    const { client, transport } = await connectStreamable(server.legacyUrl);
    await waitFor(() => server.log.some((entry) => entry.method === 'GET' && entry.status === 405));
    const response = await fetch(server.legacyUrl, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, DELETE');
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'a' } });
    expect(textOf(result)).toContain('Contents of a');
  });

  it('malformedJson breaks the next response once', async () => {
    const server = await start({ toolCount: 0 });
    const { client } = await connectStreamable(server.modernUrl);
    server.faults.malformedJson = true;
    await expect(client.callTool({ name: 'fail', arguments: {} })).rejects.toThrow();
    expect(server.faults.malformedJson).toBe(false);
    const entry = server.log.findLast((item) => item.rpcMethod === 'tools/call');
    expect(entry?.status).toBe(200);
    const again = await client.callTool({ name: 'read_file', arguments: { path: 'b' } });
    expect(textOf(again)).toContain('Contents of b');
  });

  it.each(['modern', 'legacy'] as const)(
    '%s: dropMidStream cuts the next SSE response after its headers',
    async (era) => {
      const server = await start({ toolCount: 0 });
      const errors: Error[] = [];
      const { client } = await connectStreamable(
        era === 'modern' ? server.modernUrl : server.legacyUrl,
      );
      client.onerror = (error) => errors.push(error);
      server.faults.dropMidStream = true;
      // A progress token makes the modern endpoint answer with SSE (the legacy one always does).
      await expect(
        client.callTool(
          { name: 'slow_count', arguments: { count: 2, delayMs: 10 } },
          { timeout: 600, onprogress: () => undefined },
        ),
      ).rejects.toThrow();
      expect(server.faults.dropMidStream).toBe(false);
      expect(errors.some((error) => /SSE stream disconnected/.test(error.message))).toBe(true);
      expect(server.log.findLast((entry) => entry.rpcMethod === 'tools/call')?.status).toBe(200);
    },
  );

  it('refuseInitialize 404 makes Streamable HTTP fail; legacy SSE still connects', async () => {
    const server = await start({ toolCount: 0 });
    server.faults.refuseInitialize = 404;
    const streamable = newClient();
    const error: unknown = await streamable
      .connect(new StreamableHTTPClientTransport(new URL(server.legacyUrl)))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(
      server.log
        .filter((entry) => entry.path === '/legacy/mcp')
        .every((entry) => entry.status === 404),
    ).toBe(true);

    const fallback = newClient();
    await fallback.connect(new SSEClientTransport(new URL(server.legacySseUrl)));
    expect((await fallback.listTools()).tools.length).toBe(8);
  });

  it('delayMs delays every MCP response', async () => {
    const server = await start({ toolCount: 0 });
    const { client } = await connectStreamable(server.modernUrl);
    server.faults.delayMs = 150;
    const started = performance.now();
    await client.callTool({ name: 'read_file', arguments: { path: 'c' } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    server.faults.reset();
    expect(server.faults.delayMs).toBe(0);
  });

  it('GET/POST /control/faults read and flip the switches', async () => {
    const server = await start({ toolCount: 0 });
    const { client, transport } = await connectStreamable(server.legacyUrl);
    const before = (await (await fetch(`${server.url}/control/faults`)).json()) as Record<
      string,
      unknown
    >;
    expect(before).toMatchObject({
      getStream: 'ok',
      delayMs: 0,
      malformedJson: false,
      dropMidStream: false,
      refuseInitialize: null,
      sessions: { legacyStreamable: 1, legacySse: 0 },
    });
    const patched = await fetch(`${server.url}/control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ getStream: 406, refuseInitialize: 405, expireSessions: true }),
    });
    expect(await patched.json()).toMatchObject({
      getStream: 406,
      refuseInitialize: 405,
      sessions: { legacyStreamable: 0 },
    });
    expect(server.faults.getStream).toBe(406);
    await expect(client.listTools({}, { cacheMode: 'bypass' })).rejects.toBeInstanceOf(
      SdkHttpError,
    );
    expect(transport.sessionId).toBeDefined();

    const invalid = await fetch(`${server.url}/control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ getStream: 500 }),
    });
    expect(invalid.status).toBe(400);
    await fetch(`${server.url}/control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reset: true }),
    });
    expect(server.faults.getStream).toBe('ok');
    expect(server.faults.refuseInitialize).toBeNull();
  });

  it('/control/tools-changed notifies legacy sessions and modern listeners', async () => {
    const server = await start({ toolCount: 0 });
    const legacy = await connectStreamable(server.legacyUrl);
    const legacyNotified: string[] = [];
    legacy.client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      legacyNotified.push(notification.method);
    });
    await waitFor(() =>
      server.log.some(
        (entry) => entry.method === 'GET' && entry.path === '/legacy/mcp' && entry.status === 200,
      ),
    );

    const modern = await connectStreamable(server.modernUrl);
    const modernNotified: string[] = [];
    modern.client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      modernNotified.push(notification.method);
    });
    const subscription = await modern.client.listen({ toolsListChanged: true });

    const response = await fetch(`${server.url}/control/tools-changed`, { method: 'POST' });
    expect(await response.json()).toEqual({ dynamicToolEnabled: true, toolCount: 9 });
    await waitFor(() => legacyNotified.length === 1 && modernNotified.length === 1);
    const { tools } = await legacy.client.listTools({}, { cacheMode: 'bypass' });
    expect(tools.map((tool) => tool.name)).toContain('dynamic_tool');
    await subscription.close();
  });

  it('answers CORS preflights with the MCP headers', async () => {
    const server = await start({ toolCount: 0 });
    const response = await fetch(server.modernUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version, x-trace-id',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(', ');
    for (const header of [
      'content-type',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'mcp-method',
      'mcp-name',
      'x-trace-id',
    ]) {
      expect(allowed).toContain(header);
    }
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'mcp-session-id, mcp-protocol-version, www-authenticate',
    );
    expect(response.headers.get('access-control-max-age')).toBe('600');
    const plain = await fetch(`${server.url}/control/faults`);
    expect(plain.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('close() resolves while SSE streams are open', async () => {
    const server = await start({ toolCount: 0 });
    const legacy = await connectStreamable(server.legacyUrl);
    const sse = newClient();
    await sse.connect(new SSEClientTransport(new URL(server.legacySseUrl)));
    await waitFor(() =>
      server.log.some(
        (entry) => entry.method === 'GET' && entry.path === '/legacy/mcp' && entry.status === 200,
      ),
    );
    const slow = legacy.client
      .callTool({ name: 'slow_count', arguments: { count: 100, delayMs: 100 } })
      .catch((error: unknown) => error);
    await waitFor(() => server.log.some((entry) => entry.rpcMethod === 'tools/call'));
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(2000);
    await server.close();
    legacy.client.onerror = () => undefined;
    await legacy.client.close();
    await slow;
  });
});
