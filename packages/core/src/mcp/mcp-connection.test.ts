import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { startDemoServer } from '@switchboard/fixtures';
import type { DemoServer } from '@switchboard/fixtures';
import type { RequestLogEntry } from '@switchboard/fixtures';
import { startEverythingServer } from '@switchboard/fixtures';
import type { EverythingServer } from '@switchboard/fixtures';
import { findFreePort } from '@switchboard/fixtures';
import { legacySseTransport } from '../legacy-sse/index.ts';
import { McpConnection } from './mcp-connection.ts';
import type { McpConnectionOptions } from './mcp-connection.ts';

const demos: DemoServer[] = [];
const everythings: EverythingServer[] = [];
const connections: McpConnection[] = [];
const httpServers: Server[] = [];

afterEach(async () => {
  vi.unstubAllGlobals();
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  await Promise.all(demos.splice(0).map((demo) => demo.close()));
  await Promise.all(everythings.splice(0).map((server) => server.close()));
  await Promise.all(
    httpServers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function demo(): Promise<DemoServer> {
  const server = await startDemoServer({ toolCount: 3, pageSize: 20 });
  demos.push(server);
  return server;
}

function connect(options: Partial<McpConnectionOptions> & { url?: URL }): McpConnection {
  const connection = new McpConnection({
    name: 'test',
    transport: 'auto',
    legacySse: legacySseTransport,
    capabilities: {},
    setupClient() {},
    timeoutMs: 5000,
    ...options,
  });
  connections.push(connection);
  return connection;
}

interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
}

/** A `fetchMiddleware` that records every request reaching the network. */
function recorder(): {
  requests: RecordedRequest[];
  middleware: (next: typeof fetch) => typeof fetch;
} {
  const requests: RecordedRequest[] = [];
  return {
    requests,
    middleware: (next) => async (input, init) => {
      requests.push({
        method: (init?.method ?? 'GET').toUpperCase(),
        url: String(input instanceof Request ? input.url : input),
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
      });
      return next(input, init);
    },
  };
}

const listToolNames = async (client: Client): Promise<string[]> =>
  (await client.listTools()).tools.map((tool) => tool.name);

function entries(server: DemoServer, since = 0): RequestLogEntry[] {
  return server.log.slice(since);
}

function rpcCount(log: RequestLogEntry[], method: string): number {
  return log.filter((entry) => entry.rpcMethod === method).length;
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function failure(promise: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SwitchboardError);
    return error as SwitchboardError;
  }
  throw new Error('expected a failure');
}

/** A small node:http server on 127.0.0.1 answering with `handler`. */
async function tinyServer(
  handler: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<URL> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => handler(request, body, response));
  });
  httpServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return new URL(`http://127.0.0.1:${address.port}/mcp`);
}

describe('McpConnection: protocol eras', () => {
  it('negotiates the 2026-07-28 era with a modern server and keeps what it learnt', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.modernUrl) });
    const changes: unknown[] = [];
    connection.subscribe(() => changes.push(connection.info));
    expect(connection.status).toBe('idle');

    const names = await connection.use(undefined, listToolNames);

    expect(names).toContain('get_weather');
    expect(connection.status).toBe('connected');
    expect(connection.info).toMatchObject({
      transport: 'streamable-http',
      protocolEra: 'modern',
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'switchboard-demo-modern' },
      discover: { supportedVersions: ['2026-07-28'] },
    });
    expect(changes.length).toBeGreaterThan(0);
  });

  it('falls back to the 2025 initialize era with a legacy server', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacyUrl) });

    await connection.use(undefined, listToolNames);

    expect(connection.info).toMatchObject({
      transport: 'streamable-http',
      protocolEra: 'legacy',
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'switchboard-demo-legacy' },
    });
    expect(connection.info?.discover).toBeUndefined();
  });

  it('honours options.prior on the first connect: no server/discover probe', async () => {
    const server = await demo();
    const first = connect({ url: new URL(server.modernUrl) });
    await first.use(undefined, listToolNames);
    const discover = first.info?.discover;

    const since = server.log.length;
    const modern = connect({
      url: new URL(server.modernUrl),
      prior: { protocolEra: 'modern', discover, transport: 'streamable-http' },
    });
    expect(await modern.use(undefined, listToolNames)).toContain('book_table');
    expect(modern.info?.protocolEra).toBe('modern');
    const legacy = connect({
      url: new URL(server.legacyUrl),
      prior: { protocolEra: 'legacy', transport: 'streamable-http' },
    });
    await legacy.use(undefined, listToolNames);
    expect(legacy.info?.protocolEra).toBe('legacy');

    expect(rpcCount(entries(server, since), 'server/discover')).toBe(0);
    expect(rpcCount(entries(server, since), 'initialize')).toBe(1);
  });

  it('drops a stale modern prior (the server answers 400) and probes once', async () => {
    const server = await demo();
    const first = connect({ url: new URL(server.modernUrl) });
    await first.use(undefined, listToolNames);

    const since = server.log.length;
    const connection = connect({
      url: new URL(server.legacyUrl),
      prior: {
        protocolEra: 'modern',
        discover: first.info?.discover,
        transport: 'streamable-http',
      },
    });
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');

    expect(connection.info?.protocolEra).toBe('legacy');
    const log = entries(server, since);
    expect(log.map((entry) => `${entry.rpcMethod ?? entry.method} ${entry.status}`)).toEqual(
      expect.arrayContaining(['tools/list 400', 'server/discover 400', 'initialize 200']),
    );
    expect(rpcCount(log, 'server/discover')).toBe(1);
  });
});

describe('McpConnection: sessions', () => {
  it('recovers an expired session (404): new session without a probe, operation retried once', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacyUrl) });
    await connection.use(undefined, listToolNames);
    const firstSession = server.log.find((entry) => entry.sessionId !== undefined)?.sessionId;

    server.faults.expireSessions();
    const since = server.log.length;
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');

    const log = entries(server, since);
    expect(rpcCount(log, 'server/discover')).toBe(0);
    expect(rpcCount(log, 'initialize')).toBe(1);
    expect(log).toContainEqual(
      expect.objectContaining({ rpcMethod: 'tools/list', status: 404, sessionId: firstSession }),
    );
    const retried = log.filter((entry) => entry.rpcMethod === 'tools/list' && entry.status === 200);
    expect(retried).toHaveLength(1);
    expect(retried[0]?.sessionId).not.toBe(firstSession);
  });

  it('reports a second consecutive 404 as an error', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacyUrl) });
    await connection.use(undefined, listToolNames);

    const error = await failure(
      connection.use(undefined, (client) => {
        server.faults.expireSessions();
        return client.listTools();
      }),
    );

    expect(error.code).toBe('http_status');
    expect(error.details?.status).toBe(404);
    expect(error.message).toMatch(/again/);
  });

  it('opens one session per distinct header set, single-flight per set', async () => {
    const server = await demo();
    const record = recorder();
    const connection = connect({
      url: new URL(server.legacyUrl),
      headers: async (runContext) => ({
        authorization: `Bearer token-${(runContext as { user: string }).user}`,
      }),
      fetchMiddleware: record.middleware,
    });

    await Promise.all([
      connection.use({ user: 'ada' }, listToolNames),
      connection.use({ user: 'ada' }, listToolNames),
      connection.use({ user: 'bob' }, listToolNames),
    ]);
    await connection.use({ user: 'ada' }, listToolNames);

    expect(rpcCount(server.log, 'initialize')).toBe(2);
    // The era verdict of the first session is reused: one probe in all.
    expect(rpcCount(server.log, 'server/discover')).toBe(1);
    const sessionsByToken = new Map<string, Set<string>>();
    for (const request of record.requests) {
      const session = request.headers['mcp-session-id'];
      const token = request.headers.authorization;
      if (session === undefined || token === undefined) continue;
      sessionsByToken.set(token, (sessionsByToken.get(token) ?? new Set()).add(session));
    }
    expect(sessionsByToken.get('Bearer token-ada')?.size).toBe(1);
    expect(sessionsByToken.get('Bearer token-bob')?.size).toBe(1);
    expect([...(sessionsByToken.get('Bearer token-ada') ?? [])]).not.toEqual([
      ...(sessionsByToken.get('Bearer token-bob') ?? []),
    ]);
  });

  it('ends every session with DELETE on close; close is idempotent; use then fails', async () => {
    const server = await demo();
    const connection = connect({
      url: new URL(server.legacyUrl),
      headers: (runContext) => ({ 'x-user': String(runContext) }),
    });
    await connection.use('ada', listToolNames);
    await connection.use('bob', listToolNames);

    const closing = connection.close();
    expect(connection.close()).toBe(closing);
    await closing;

    const deletes = server.log.filter((entry) => entry.method === 'DELETE');
    expect(deletes.map((entry) => entry.status)).toEqual([200, 200]);
    expect(new Set(deletes.map((entry) => entry.sessionId)).size).toBe(2);
    expect(connection.status).toBe('closed');
    const error = await failure(connection.use('ada', listToolNames));
    expect(error.code).toBe('connection_closed');
  });

  it('tolerates a 404 answer to the DELETE', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacyUrl) });
    await connection.use(undefined, listToolNames);
    server.faults.expireSessions();

    await connection.close();

    expect(server.log.filter((entry) => entry.method === 'DELETE')).toEqual([
      expect.objectContaining({ status: 404 }),
    ]);
  });

  it('recovers a legacy HTTP+SSE session the server forgot', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacySseUrl), transport: 'sse' });
    await connection.use(undefined, listToolNames);

    server.faults.expireSessions();
    // The closed event stream tells the client that the session is gone.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');
    expect(server.log.filter((entry) => entry.path === '/legacy/sse')).toHaveLength(2);
  });
});

describe('McpConnection: headers', () => {
  it('sends the headers on every Streamable HTTP request: POST, GET stream, DELETE', async () => {
    const server = await demo();
    const record = recorder();
    const connection = connect({
      url: new URL(server.legacyUrl),
      headers: { 'x-api-key': 'key-1' },
      fetchMiddleware: record.middleware,
    });
    await connection.use(undefined, listToolNames);
    await waitFor(() => server.log.some((entry) => entry.method === 'GET' && entry.status === 200));
    await connection.close();

    expect(new Set(record.requests.map((request) => request.method))).toEqual(
      new Set(['POST', 'GET', 'DELETE']),
    );
    for (const request of record.requests) expect(request.headers['x-api-key']).toBe('key-1');
  });

  it('sends the headers on the legacy SSE GET and its POSTs', async () => {
    const server = await demo();
    const record = recorder();
    const connection = connect({
      url: new URL(server.legacySseUrl),
      transport: 'sse',
      headers: async () => ({ 'x-api-key': 'key-2' }),
      fetchMiddleware: record.middleware,
    });
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');

    expect(connection.info).toMatchObject({ transport: 'sse', protocolEra: 'legacy' });
    expect(record.requests.some((request) => request.method === 'GET')).toBe(true);
    expect(record.requests.filter((request) => request.method === 'POST').length).toBeGreaterThan(
      1,
    );
    for (const request of record.requests) expect(request.headers['x-api-key']).toBe('key-2');
    expect(rpcCount(server.log, 'server/discover')).toBe(0);
  });
});

describe('McpConnection: standalone GET stream', () => {
  it.each([404, 405, 406] as const)(
    'treats a %i answer to the GET as POST-only mode, not a failure',
    async (status) => {
      const server = await demo();
      server.faults.getStream = status;
      const connection = connect({ url: new URL(server.legacyUrl) });

      expect(await connection.use(undefined, listToolNames)).toContain('get_weather');
      await waitFor(() => server.log.some((entry) => entry.method === 'GET'));
      const result = await connection.use(undefined, (client) =>
        client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } }),
      );

      expect(result.isError).not.toBe(true);
      expect(server.log.find((entry) => entry.method === 'GET')?.status).toBe(status);
      expect(connection.status).toBe('connected');
      expect(connection.error).toBeUndefined();
    },
  );

  it('never opens the GET stream with disableStandaloneSse (not even on the network)', async () => {
    const server = await demo();
    const record = recorder();
    const connection = connect({
      url: new URL(server.legacyUrl),
      disableStandaloneSse: true,
      fetchMiddleware: record.middleware,
    });

    await connection.use(undefined, listToolNames);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await connection.use(undefined, (client) =>
      client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } }),
    );

    expect(server.log.filter((entry) => entry.method === 'GET')).toEqual([]);
    expect(record.requests.filter((request) => request.method === 'GET')).toEqual([]);
    expect(rpcCount(server.log, 'notifications/initialized')).toBe(1);
  });
});

describe('McpConnection: transport auto', () => {
  it.each(['sse', 'auto'] as const)(
    "'%s' without legacySse throws invalid_input when constructed, naming the import",
    (transport) => {
      const construct = () =>
        new McpConnection({
          name: 'old',
          url: new URL('http://127.0.0.1:1/sse'),
          transport,
          capabilities: {},
          setupClient() {},
        });

      expect(construct).toThrow(
        expect.objectContaining({
          code: 'invalid_input',
          message: expect.stringContaining(
            "`import { legacySseTransport } from '@switchboard/core/legacy-sse'`",
          ),
        }),
      );
    },
  );

  it('falls back to legacy SSE on the same URL when the initialize POST gets 405', async () => {
    const server = await demo();
    const connection = connect({
      url: new URL(server.legacySseUrl),
      headers: (runContext) => ({ 'x-user': String(runContext) }),
    });

    expect(await connection.use('ada', listToolNames)).toContain('get_weather');

    expect(connection.info).toMatchObject({ transport: 'sse', protocolEra: 'legacy' });
    const sseLog = server.log.filter((entry) => entry.path === '/legacy/sse');
    expect(sseLog.map((entry) => `${entry.method} ${entry.status}`)).toEqual([
      'POST 405',
      'POST 405',
      'GET 200',
    ]);

    // What worked is remembered: another header set goes straight to SSE.
    const since = server.log.length;
    await connection.use('bob', listToolNames);
    expect(entries(server, since).filter((entry) => entry.path === '/legacy/sse')).toEqual([
      expect.objectContaining({ method: 'GET', status: 200 }),
    ]);
  });

  it('falls back to SSE on a real third-party server (server-everything, 404)', async () => {
    const everything = await startEverythingServer({ transport: 'sse' });
    everythings.push(everything);
    const connection = connect({ url: new URL(everything.url) });

    expect(await connection.use(undefined, listToolNames)).toContain('echo');
    expect(connection.info).toMatchObject({ transport: 'sse', protocolEra: 'legacy' });
  });

  it('does not fall back on other failures', async () => {
    const server = await demo();
    server.faults.refuseInitialize = 405;
    const explicit = connect({ url: new URL(server.legacyUrl), transport: 'streamable-http' });
    const error = await failure(explicit.use(undefined, listToolNames));
    expect(error.code).toBe('http_status');
    expect(server.log.filter((entry) => entry.method === 'GET')).toEqual([]);

    const record = recorder();
    const port = await findFreePort();
    const refused = connect({
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      fetchMiddleware: record.middleware,
    });
    expect((await failure(refused.use(undefined, listToolNames))).code).toBe('connection_refused');
    expect(record.requests.filter((request) => request.method === 'GET')).toEqual([]);
  });
});

describe('McpConnection: errors', () => {
  it('connection_refused, without the header values in the message', async () => {
    const port = await findFreePort();
    const connection = connect({
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      headers: { authorization: 'Bearer sk-secret-token-123' },
    });

    const error = await failure(connection.use(undefined, listToolNames));

    expect(error.code).toBe('connection_refused');
    expect(error.message).not.toContain('sk-secret-token-123');
    expect(error.message).not.toMatch(/CORS|Access-Control/);
    expect(connection.status).toBe('error');
    expect(connection.error).toBe(error);
  });

  it('connection_refused in a browser names what the server must allow (CORS)', async () => {
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('document', {});
    const port = await findFreePort();
    const connection = connect({
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      headers: { 'x-api-key': 'secret-value' },
    });

    const error = await failure(connection.use(undefined, listToolNames));

    expect(error.code).toBe('connection_refused');
    expect(error.message).toContain('Access-Control-Allow-Origin');
    expect(error.message).toContain(
      'content-type, mcp-session-id, mcp-protocol-version, authorization, last-event-id, x-api-key',
    );
    expect(error.message).toContain('mcp-method, mcp-name');
    expect(error.message).not.toContain('secret-value');
  });

  it('says to expose Mcp-Session-Id when the session id cannot be read (CORS)', async () => {
    const server = await demo();
    const connection = connect({
      url: new URL(server.legacyUrl),
      // What a browser does when the server does not expose the header.
      fetchMiddleware: (next) => async (input, init) => {
        const response = await next(input, init);
        if (!response.headers.has('mcp-session-id')) return response;
        const headers = new Headers(response.headers);
        headers.delete('mcp-session-id');
        return new Response(response.body, {
          status: response.status,
          statusText: response.statusText,
          headers,
        });
      },
    });

    const error = await failure(connection.use(undefined, listToolNames));

    expect(error.code).toBe('http_status');
    expect(error.details?.status).toBe(400);
    expect(error.message).toContain('Access-Control-Expose-Headers: Mcp-Session-Id');
  });

  it('http_status with the status and a short body excerpt', async () => {
    const server = await demo();
    server.faults.refuseInitialize = 404;
    const connection = connect({ url: new URL(server.legacyUrl), transport: 'streamable-http' });

    const error = await failure(connection.use(undefined, listToolNames));

    expect(error.code).toBe('http_status');
    expect(error.details?.status).toBe(404);
    expect(error.message).toContain('refuseInitialize');
    expect(error.message).toContain(`${new URL(server.legacyUrl).origin}/legacy/mcp`);
  });

  it('unsupported_protocol_version when the server only speaks an unknown version', async () => {
    const url = await tinyServer((_request, body, response) => {
      const message = JSON.parse(body) as { id?: number; method?: string };
      response.setHeader('content-type', 'application/json');
      if (message.method === 'initialize') {
        response.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '1999-01-01',
              capabilities: {},
              serverInfo: { name: 'ancient', version: '0' },
            },
          }),
        );
        return;
      }
      response.statusCode = 400;
      response.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id ?? null,
          error: { code: -32601, message: 'Method not found' },
        }),
      );
    });
    const connection = connect({ url });

    const error = await failure(connection.use(undefined, listToolNames));

    expect(error.code).toBe('unsupported_protocol_version');
  });

  it('invalid_response for a malformed JSON body, at connect and afterwards', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacyUrl) });
    server.faults.malformedJson = true;
    expect((await failure(connection.use(undefined, listToolNames))).code).toBe('invalid_response');

    await connection.use(undefined, listToolNames);
    server.faults.malformedJson = true;
    expect((await failure(connection.use(undefined, listToolNames))).code).toBe('invalid_response');
  });

  it('timeout when the connect takes longer than timeoutMs', async () => {
    const server = await demo();
    server.faults.delayMs = 400;
    const connection = connect({ url: new URL(server.legacyUrl), timeoutMs: 100 });

    expect((await failure(connection.use(undefined, listToolNames))).code).toBe('timeout');
  });

  it('aborted at once when the signal aborts', async () => {
    const server = await demo();
    server.faults.delayMs = 2000;
    const connection = connect({ url: new URL(server.legacyUrl) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();

    const error = await failure(
      connection.use(undefined, listToolNames, { signal: controller.signal }),
    );

    expect(error.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('connection_lost at once when the answer stream drops mid-stream', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.legacyUrl) });
    await connection.use(undefined, listToolNames);
    server.faults.dropMidStream = true;
    const started = Date.now();

    const error = await failure(
      connection.use(undefined, (client) => client.listTools({}, { timeout: 10_000 })),
    );

    expect(error.code).toBe('connection_lost');
    expect(Date.now() - started).toBeLessThan(2000);
    // The session itself is fine: the next operation works.
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');
  });

  it('connection_lost at once when a 2026-07-28 SSE answer drops mid-stream', async () => {
    const server = await demo();
    const connection = connect({ url: new URL(server.modernUrl) });
    await connection.use(undefined, listToolNames);
    server.faults.dropMidStream = true;
    const started = Date.now();

    // A progress token makes the modern endpoint answer with SSE.
    const error = await failure(
      connection.use(undefined, (client) =>
        client.callTool(
          { name: 'slow_count', arguments: { count: 2, delayMs: 10 } },
          { timeout: 10_000, onprogress: () => undefined },
        ),
      ),
    );

    expect(error.code).toBe('connection_lost');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');
  });

  it.each([
    ['2026-07-28', (server: DemoServer) => server.modernUrl],
    ['2025 era', (server: DemoServer) => server.legacyUrl],
  ])(
    'an SSE answer that ends after its response is no loss (%s): no stray error',
    async (_era, urlOf) => {
      const server = await demo();
      const errors: Error[] = [];
      const connection = connect({
        url: new URL(urlOf(server)),
        setupClient: (client) => {
          client.onerror = (error) => errors.push(error);
        },
      });
      const progress: number[] = [];
      const result = await connection.use(undefined, (client) =>
        client.callTool(
          { name: 'slow_count', arguments: { count: 2, delayMs: 10 } },
          { onprogress: (update) => progress.push(update.progress) },
        ),
      );

      expect(result.isError).not.toBe(true);
      expect(progress.length).toBeGreaterThan(0);
      expect(errors.map((error) => error.message)).toEqual([]);
    },
  );

  it('connection_lost when the legacy SSE event stream drops', async () => {
    const server = await demo();
    server.faults.dropMidStream = true;
    const connection = connect({ url: new URL(server.legacySseUrl), transport: 'sse' });

    expect((await failure(connection.use(undefined, listToolNames))).code).toBe('connection_lost');
    expect(await connection.use(undefined, listToolNames)).toContain('get_weather');
  });
});

describe('McpConnection: server-everything over Streamable HTTP', () => {
  it('connects (2025 era, primed SSE answers), calls a tool and ends the session', async () => {
    const everything = await startEverythingServer({ transport: 'streamableHttp' });
    everythings.push(everything);
    const record = recorder();
    const connection = connect({
      url: new URL(everything.url),
      fetchMiddleware: record.middleware,
    });

    const result = await connection.use(undefined, (client) =>
      client.callTool({ name: 'echo', arguments: { message: 'hi' } }),
    );

    expect(JSON.stringify(result.content)).toContain('hi');
    expect(connection.info).toMatchObject({ protocolEra: 'legacy', transport: 'streamable-http' });
    await connection.close();
    expect(record.requests.at(-1)?.method).toBe('DELETE');
  });
});
