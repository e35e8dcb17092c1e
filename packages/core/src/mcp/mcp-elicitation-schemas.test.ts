import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { mcpServer, type McpServer } from './mcp-server.ts';

/*
 * Elicitation schemas beyond the spec's restricted subset (issue 14, item 1), end to end over
 * HTTP on 127.0.0.1 against small SDK servers of both eras: the interrupt carries the server's
 * schema unchanged, the answer is validated against it and reaches the server, and only a
 * request that is not an object schema at all is refused, with the reason.
 */

/** What servers in the wild send: far outside the restricted elicitation subset. */
const richSchema = {
  type: 'object',
  $defs: { color: { type: 'string', enum: ['red', 'green', 'blue'] } },
  properties: {
    size: { title: 'Size', anyOf: [{ type: 'string', enum: ['S', 'M', 'L'] }, { type: 'null' }] },
    note: { type: ['string', 'null'], description: 'Anything else?' },
    plan: {
      title: 'Plan',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
      default: 'free',
    },
    extras: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'wifi', title: 'Wi-Fi' },
          { const: 'parking', title: 'Parking' },
        ],
      },
      uniqueItems: true,
    },
    email: { type: 'string', format: 'email' },
    day: { type: 'string', format: 'date' },
    color: { $ref: '#/$defs/color' },
    scores: { type: 'object', additionalProperties: { type: 'number' } },
  },
  required: ['email', 'color'],
} as const;

const answer = {
  size: null,
  note: null,
  extras: ['wifi', 'parking'],
  email: 'ada@example.com',
  day: '2026-12-24',
  color: 'green',
  scores: { taste: 5 },
};

/** A schema that does not describe an object: refused, with the reason. */
const notAnObject = { type: 'string', enum: ['a', 'b'] };

interface SchemaServer {
  url: string;
  /** The `ElicitResult`s the server received, in order. */
  received: unknown[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/mcp`;
}

const closer = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * A stateless 2025-era server (SDK v1) whose tool `ask` pushes `elicitation/create` with
 * `schema` on the call's own stream and answers with what it received (or the error).
 */
async function startPushedServer(schema: unknown): Promise<SchemaServer> {
  const { McpServer: SdkServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const { randomUUID } = await import('node:crypto');
  const received: unknown[] = [];
  // Stateful: the client's answer to the pushed request comes on a POST of its own.
  const sessions = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
  const http = createServer((request, response) => {
    const id = request.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing !== undefined) {
      void existing.handleRequest(request, response);
      return;
    }
    const sdk = new SdkServer({ name: 'schemas-2025', version: '1.0.0' });
    sdk.registerTool('ask', { description: 'Asks the user' }, async (extra) => {
      try {
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { message: 'Tell us', requestedSchema: schema as never },
          },
          z.object({}).passthrough() as never,
        );
        received.push(result);
        return { content: [{ type: 'text' as const, text: `got ${JSON.stringify(result)}` }] };
      } catch (error) {
        const failure = error as { code?: number; message?: string };
        received.push({ error: { code: failure.code, message: failure.message } });
        return {
          content: [{ type: 'text' as const, text: `error ${failure.code}: ${failure.message}` }],
        };
      }
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    void sdk.connect(transport).then(() => transport.handleRequest(request, response));
  });
  return { url: await listen(http), received, close: closer(http) };
}

/**
 * A 2026-07-28 server (SDK v2, `createMcpHandler`) whose tool `ask` answers `input_required`
 * with one elicitation request carrying `schema`, then, on the retry, what it received.
 */
async function startMrtrServer(schema: unknown): Promise<SchemaServer> {
  const { McpServer: SdkServer, createMcpHandler } = await import('@modelcontextprotocol/server');
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const received: unknown[] = [];
  const handler = createMcpHandler(() => {
    const sdk = new SdkServer(
      { name: 'schemas-2026', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    sdk.server.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'ask', description: 'Asks the user', inputSchema: { type: 'object' } }],
    }));
    sdk.server.setRequestHandler('tools/call', (_request, context) => {
      const responses = context.mcpReq.inputResponses as Record<string, unknown> | undefined;
      const response = responses?.form;
      if (response === undefined) {
        return {
          resultType: 'input_required',
          inputRequests: {
            form: {
              method: 'elicitation/create',
              params: { mode: 'form', message: 'Tell us', requestedSchema: schema },
            },
          },
          requestState: 'round-1',
        } as never;
      }
      received.push(response);
      return { content: [{ type: 'text', text: `got ${JSON.stringify(response)}` }] };
    });
    return sdk;
  });
  const node = toNodeHandler(handler);
  const http = createServer((request, response) => {
    void node(request as never, response);
  });
  const url = await listen(http);
  const close = closer(http);
  return {
    url,
    received,
    close: async () => {
      await handler.close();
      await close();
    },
  };
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const value = await thing;
  opened.push(value);
  return value;
}

function client(url: string): McpServer {
  const created = mcpServer({ url, name: 'schemas' });
  opened.push(created);
  return created;
}

const eras = [
  ['pushed elicitation/create (2025 era)', startPushedServer],
  ['MRTR input_required (2026-07-28)', startMrtrServer],
] as const;

describe('elicitation schemas beyond the restricted subset', () => {
  it.each(eras)(
    '%s: the interrupt carries the schema unchanged and the server gets the accepted answer',
    async (_era, start) => {
      const server = await started(start(richSchema));
      const model: ScriptedModelServer = await started(
        startScriptedModelServer({
          script: scriptFromReplies([
            { toolCalls: [{ id: 'ask', name: 'ask', arguments: {} }] },
            { text: 'done' },
          ]),
        }),
      );
      const agent = new Agent({
        name: 'schemas',
        model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
        mcpServers: [client(server.url)],
        history: new MemoryHistoryStore(),
      });
      const paused = await agent.execute({ threadId: 't', messages: 'ask me' }).result();
      expect(paused.status).toBe('paused');
      expect(paused.interrupts[0]).toMatchObject({ mode: 'form', message: 'Tell us' });
      expect(paused.interrupts[0]?.requestedSchema).toEqual(richSchema);

      // The answer is checked against the schema as sent: a color outside the `$ref` enum.
      const refused = await agent
        .execute({
          threadId: 't',
          resolutions: [
            { callId: 'ask', action: 'approve', content: { ...answer, color: 'pink' } },
          ],
        })
        .result();
      expect(refused.status).toBe('paused');
      expect(refused.error?.code).toBe('invalid_resolution');
      expect(server.received).toEqual([]);

      const done = await agent
        .execute({
          threadId: 't',
          resolutions: [{ callId: 'ask', action: 'approve', content: answer }],
        })
        .result();
      expect(done.status).toBe('completed');
      // The schema's default fills the field left out (applyDefaults).
      expect(server.received).toEqual([{ action: 'accept', content: { ...answer, plan: 'free' } }]);
    },
  );

  it('pushed: a requestedSchema that is not an object schema gets -32602 with the reason', async () => {
    const server = await started(startPushedServer(notAnObject));
    let asked = 0;
    const output = await client(server.url).callTool(
      'ask',
      {},
      {
        onInput: async () => {
          asked += 1;
          return { action: 'approve', content: {} };
        },
      },
    );
    expect(asked).toBe(0);
    expect(server.received).toEqual([
      {
        error: {
          code: -32602,
          message: expect.stringContaining(
            '"requestedSchema" must describe an object (type "object"), got type "string"',
          ),
        },
      },
    ]);
    expect(output.text).toContain('Invalid elicitation request');
  });

  it('pushed: a form request without requestedSchema is refused, saying so', async () => {
    const server = await started(startPushedServer(undefined));
    const output = await client(server.url).callTool(
      'ask',
      {},
      { onInput: async () => ({ action: 'cancel' }) },
    );
    expect(output.text).toContain('needs "requestedSchema", a JSON Schema object');
  });

  it('MRTR: a requestedSchema that is not an object schema ends the call with the reason', async () => {
    const server = await started(startMrtrServer(['not', 'a', 'schema']));
    let asked = 0;
    const output = await client(server.url).callTool(
      'ask',
      {},
      {
        onInput: async () => {
          asked += 1;
          return { action: 'approve', content: {} };
        },
      },
    );
    expect(asked).toBe(0);
    expect(output).toMatchObject({
      isError: true,
      error: {
        code: 'invalid_input_request',
        message: expect.stringContaining(
          '"requestedSchema" must be a JSON Schema object, got an array',
        ),
      },
    });
    expect(server.received).toEqual([]);
  });
});
