import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer } from './mcp-server.ts';

/**
 * An MCP request that cannot leave the browser (every connection to the host held, issue 20
 * item 4) says so: after `waitingNoticeMs` without response headers the server's snapshot lists
 * it in `waiting` (method, the call's id, host), and drops it when the headers arrive. The
 * browser's queue is an in-process double (a fetch that holds `tools/call` until released);
 * the server is the real demo server of both eras. e2e/tests/connection-limits.spec.ts holds
 * Chromium's real connections.
 */
let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer();
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

/** A fetch that keeps `tools/call` POSTs in "the browser" until `release()`. */
function heldCalls(): { fetch: typeof fetch; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release,
    fetch: async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) await released;
      return await fetch(input, init);
    },
  };
}

/** Resolves once `server`'s snapshot satisfies `check`. */
function until(server: McpServer, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const stop = server.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
}

describe('MCP requests waiting for a connection', () => {
  it.each([
    ['2025-11-25', () => demo.legacyUrl],
    ['2026-07-28', () => demo.modernUrl],
  ])(
    'a held tools/call is listed as waiting, then answered and dropped (%s era)',
    async (_era, url) => {
      const held = heldCalls();
      const server = mcpServer({
        url: url(),
        name: 'demo',
        fetch: held.fetch,
        waitingNoticeMs: 20,
      });
      opened.push(server);
      await server.listTools();
      expect(server.getSnapshot().waiting).toBeUndefined();
      const sentCalls = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/call').length;
      const callsBefore = sentCalls();

      const call = server.callTool('get_weather', { city: 'Oslo' });
      await until(server, () => server.getSnapshot().waiting !== undefined);
      const [waiting, ...others] = server.getSnapshot().waiting ?? [];
      expect(others).toEqual([]);
      expect(waiting).toMatchObject({ method: 'tools/call', host: new URL(url()).host });
      expect(waiting?.callId).toMatch(/^direct-/);
      expect(typeof waiting?.since).toBe('number');
      // Not sent yet: the server has seen no call.
      expect(sentCalls()).toBe(callsBefore);

      held.release();
      const output = await call;
      expect(output.isError).not.toBe(true);
      expect(output.structuredContent).toMatchObject({ city: 'Oslo' });
      expect(server.getSnapshot().waiting).toBeUndefined();
    },
  );

  it('refuses a waitingNoticeMs that is not a positive number', async () => {
    const server = mcpServer({ url: demo.modernUrl, name: 'demo', waitingNoticeMs: 0 });
    opened.push(server);
    await expect(server.listTools()).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
