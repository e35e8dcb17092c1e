import { afterEach, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { legacySseTransport } from './index.ts';

const IMPORT_LINE = "import { legacySseTransport } from '@switchboard/core/legacy-sse'";

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function demo(): Promise<DemoServer> {
  const server = await startDemoServer({ toolCount: 3 });
  opened.push(server);
  return server;
}

function track(server: McpServer): McpServer {
  opened.push(server);
  return server;
}

/** What `body` threw, which must be a `SwitchboardError`. */
function thrownBy(body: () => unknown): SwitchboardError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(SwitchboardError);
    return error as SwitchboardError;
  }
  throw new Error('expected a throw');
}

describe('@switchboard/core/legacy-sse', () => {
  it.each(['sse', 'auto'] as const)(
    "transport '%s' without legacySse: mcpServer() throws invalid_input naming the import",
    (transport) => {
      const error = thrownBy(() =>
        mcpServer({ url: 'http://127.0.0.1:1/sse', name: 'old', transport }),
      );

      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(IMPORT_LINE);
      expect(error.message).toContain('legacySse: legacySseTransport');
      expect(error.message).toContain(`transport '${transport}'`);
    },
  );

  it('reaches a legacy HTTP+SSE server (the demo server on 127.0.0.1) through the factory', async () => {
    const server = await demo();
    const seen: { method: string; app: string | null }[] = [];
    const tools = track(
      mcpServer({
        url: server.legacySseUrl,
        name: 'demo',
        transport: 'sse',
        legacySse: legacySseTransport,
        headers: { 'x-app': 'legacy' },
        fetch: (input, init) => {
          const request = new Request(input, init);
          seen.push({ method: request.method, app: request.headers.get('x-app') });
          return fetch(input, init);
        },
      }),
    );

    const output = await tools.callTool('get_weather', { city: 'Oslo' });

    expect(output.text).toContain('Oslo');
    expect(tools.getSnapshot()).toMatchObject({ transport: 'sse', protocolEra: 'legacy' });
    // The factory was given the session's fetch: the stream GET and the POSTs went through it,
    // with the server's headers applied.
    expect(seen.map((request) => request.method)).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(seen.filter((request) => request.app !== 'legacy')).toEqual([]);
    expect(server.log.some((entry) => entry.path === '/legacy/messages')).toBe(true);
  });

  it("transport 'auto' with legacySse falls back to it after the POST gets 405", async () => {
    const server = await demo();
    const tools = track(
      mcpServer({
        url: server.legacySseUrl,
        name: 'demo',
        transport: 'auto',
        legacySse: legacySseTransport,
      }),
    );

    expect((await tools.listTools()).map((tool) => tool.originalName)).toContain('get_weather');
    expect(tools.getSnapshot().transport).toBe('sse');
  });
});
