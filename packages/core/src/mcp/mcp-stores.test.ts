import { describe, expect, it } from 'vitest';
import { McpConnection } from './mcp-connection.ts';
import { mcpServer } from './mcp-server.ts';

/** Nothing listens on port 1: every connect is refused at once. */
const REFUSED = new URL('http://127.0.0.1:1/mcp');

describe('McpServer and McpConnection as stores', () => {
  it('McpServer: subscribe and getSnapshot work detached, one snapshot per change', async () => {
    const server = mcpServer({ url: REFUSED, name: 'refused' });
    const { subscribe, getSnapshot } = server;
    const first = getSnapshot();
    expect(getSnapshot()).toBe(first);
    const seen: string[] = [];
    const unsubscribe = subscribe(() => seen.push(getSnapshot().status));

    await expect(server.connect()).rejects.toMatchObject({ code: 'connection_refused' });

    expect(seen).toEqual(['connecting', 'error']);
    expect(getSnapshot()).not.toBe(first);
    expect(getSnapshot()).toBe(server.getSnapshot());
    unsubscribe();
    await server.close();
    expect(seen).toEqual(['connecting', 'error']);
    expect(server.getSnapshot().status).toBe('closed');
  });

  it('McpConnection: info, status and error are one snapshot', async () => {
    const connection = new McpConnection({
      name: 'refused',
      url: REFUSED,
      transport: 'streamable-http',
      capabilities: {},
      setupClient() {},
    });
    const { subscribe, getSnapshot } = connection;
    expect(getSnapshot()).toEqual({ info: undefined, status: 'idle', error: undefined });
    const snapshots: unknown[] = [];
    subscribe(() => snapshots.push(getSnapshot()));

    await expect(connection.use(undefined, async () => undefined)).rejects.toMatchObject({
      code: 'connection_refused',
    });

    expect(snapshots).toHaveLength(2);
    expect(getSnapshot()).toMatchObject({ status: 'error', info: undefined });
    expect(connection.error).toBe(getSnapshot().error);
    expect(connection.status).toBe('error');
    await connection.close();
    expect(getSnapshot()).toEqual({ info: undefined, status: 'closed', error: undefined });
  });
});
