import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Client, Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnection } from '../mcp/mcp-connection.ts';
import { stdioTransport } from './stdio-transport.ts';

const require = createRequire(import.meta.url);
const everythingEntry = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

const connections: McpConnection[] = [];

afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stdioTransport', () => {
  it('round-trips with server-everything over stdio and ends the child process on close', async () => {
    const transports: Transport[] = [];
    const factory = stdioTransport({
      command: process.execPath,
      args: [everythingEntry, 'stdio'],
      stderr: 'ignore',
    });
    const connection = new McpConnection({
      name: 'everything-stdio',
      transport: 'auto',
      capabilities: {},
      setupClient() {},
      createTransport: () => {
        const transport = factory();
        transports.push(transport);
        return transport;
      },
    });
    connections.push(connection);

    const result = await connection.use(undefined, (client) =>
      client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }),
    );

    expect(JSON.stringify(result.content)).toContain('over stdio');
    expect(connection.info).toMatchObject({ transport: 'custom', protocolEra: 'legacy' });
    const transport = transports[0];
    expect(transport).toBeInstanceOf(StdioClientTransport);
    const pid = (transport as StdioClientTransport).pid;
    expect(pid).toBeTypeOf('number');
    expect(isRunning(pid as number)).toBe(true);

    await connection.close();

    expect(isRunning(pid as number)).toBe(false);
  });

  it('reconnects with a new process after the child exits, without probing again', async () => {
    const transports: StdioClientTransport[] = [];
    const priors: unknown[] = [];
    const factory = stdioTransport({
      command: process.execPath,
      args: [everythingEntry, 'stdio'],
      stderr: 'ignore',
    });
    const connection = new McpConnection({
      name: 'everything-stdio',
      transport: 'auto',
      capabilities: {},
      setupClient(client) {
        const connect = client.connect.bind(client);
        client.connect = (transport, options) => {
          priors.push(options?.prior);
          return connect(transport, options);
        };
      },
      createTransport: () => {
        const transport = factory() as StdioClientTransport;
        transports.push(transport);
        return transport;
      },
    });
    connections.push(connection);
    const listTools = (client: Client) => client.listTools();
    await connection.use(undefined, listTools);
    const first = transports[0]?.pid as number;

    process.kill(first, 'SIGKILL');
    await expect.poll(() => isRunning(first)).toBe(false);
    await expect.poll(() => transports[0]?.pid).toBeNull();

    const { tools } = await connection.use(undefined, listTools);
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(transports).toHaveLength(2);
    expect(transports[1]?.pid).not.toBe(first);
    expect(priors).toEqual([undefined, { kind: 'legacy' }]);
  });
});
