import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort, startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer } from './mcp-server.ts';

let demo: DemoServer | undefined;
afterEach(async () => {
  await demo?.close();
  demo = undefined;
});

describe('McpServer.reconnect', () => {
  it('after the server went away and came back: a new session, and the server is usable again', async () => {
    const port = await findFreePort();
    demo = await startDemoServer({ port });
    const server = mcpServer({ url: `${demo.url}/legacy/mcp`, name: 'demo' });
    try {
      await server.listTools();
      expect(server.getSnapshot().status).toBe('connected');
      await demo.close();
      demo = undefined;
      const refused = await server.callTool('get_weather', { city: 'Oslo' }).catch((e) => e);
      expect(isSwitchboardError(refused)).toBe(true);

      demo = await startDemoServer({ port });
      await server.reconnect();
      expect(server.getSnapshot().status).toBe('connected');
      // A new session was opened on the restarted server.
      expect(demo.log.filter((entry) => entry.rpcMethod === 'initialize')).toHaveLength(1);
      const output = await server.callTool('get_weather', { city: 'Oslo' });
      expect(output.isError).toBeUndefined();
      expect(await server.listTools()).not.toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('on a live server: ends the session and opens a new one', async () => {
    demo = await startDemoServer();
    const server = mcpServer({ url: `${demo.url}/legacy/mcp`, name: 'demo' });
    try {
      await server.listTools();
      await server.reconnect();
      expect(server.getSnapshot().status).toBe('connected');
      const log = demo.log;
      const sessions = new Set(
        log.flatMap((entry) => (entry.rpcMethod === 'initialize' ? [] : (entry.sessionId ?? []))),
      );
      expect(log.filter((entry) => entry.rpcMethod === 'initialize')).toHaveLength(2);
      expect(sessions.size).toBe(2);
      expect(log.some((entry) => entry.method === 'DELETE')).toBe(true);
      expect((await server.callTool('get_weather', { city: 'Oslo' })).isError).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('while the server is still away: fails as connect does, with the failure in the snapshot', async () => {
    const port = await findFreePort();
    demo = await startDemoServer({ port });
    const server = mcpServer({ url: `${demo.url}/legacy/mcp`, name: 'demo' });
    try {
      await server.listTools();
      await demo.close();
      demo = undefined;
      const failure: unknown = await server.reconnect().catch((error: unknown) => error);
      expect(isSwitchboardError(failure, 'connection_refused')).toBe(true);
      expect(server.getSnapshot()).toMatchObject({
        status: 'error',
        error: { code: 'connection_refused' },
      });
    } finally {
      await server.close();
    }
  });
});
