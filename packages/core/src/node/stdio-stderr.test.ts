import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { STDERR_MCP_SERVER_PATH } from '@switchboard/fixtures';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import { nodeMcpServer, type NodeMcpServerOptions } from './mcp-server.ts';
import { stdioTransport } from './stdio-transport.ts';

// Issue 14, item 7: the stdio `stderr` option reaches the child process. Each mode runs a real
// child (`stderr-mcp-server.mjs`, a tiny stdio MCP server that logs to stderr).

const here = dirname(fileURLToPath(import.meta.url));
const opened: McpServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

function stdioServer(options: Partial<NodeMcpServerOptions>): McpServer {
  const server = nodeMcpServer({
    name: 'stderr-server',
    command: process.execPath,
    args: [STDERR_MCP_SERVER_PATH],
    ...options,
  } as NodeMcpServerOptions);
  opened.push(server);
  return server;
}

/** Runs `command` to its end; its stdout and stderr. */
async function run(
  command: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('stdio stderr: inherit, ignore and pipe', () => {
  it('inherit writes to our stderr, ignore drops it, pipe hands it to onStderr only', async () => {
    // A process of its own, so what reaches its stderr can be read.
    const tsx = join(here, '../../../../node_modules/tsx/dist/cli.mjs');
    const runner = join(here, 'stderr-modes-runner.test-support.ts');
    const { code, stdout, stderr } = await run(process.execPath, [
      tsx,
      runner,
      STDERR_MCP_SERVER_PATH,
    ]);
    expect(stderr).not.toMatch(/Error/);
    expect(code).toBe(0);
    expect(stdout).toContain('inherit: logged\nignore: logged\n');
    expect(stdout).toContain('pipe: logged\n');

    // inherit: the server's own lines, as it wrote them.
    expect(stderr).toContain('marker-inherit\n');
    expect(stderr).toMatch(/^stderr-server: started \d+$/m);
    expect(stderr).toContain('stderr-server: tools/call\n');
    // ignore and pipe: nothing of theirs.
    expect(stderr).not.toContain('marker-ignore');
    expect(stderr).not.toContain('marker-pipe');
    // The started lines: the inherit server only (the SDK's era probe discards its own stderr).
    expect(stderr.match(/stderr-server: started/g)).toHaveLength(1);

    // pipe: line by line to onStderr, from the first line on.
    const piped = stdout
      .split('\n')
      .filter((line) => line.startsWith('piped: '))
      .map((line) => line.slice('piped: '.length));
    expect(piped[0]).toMatch(/^stderr-server: started \d+$/);
    expect(piped).toContain('marker-pipe');
    expect(piped).not.toContain('marker-inherit');
  }, 30_000);

  it('pipe: drains a server that logs more than a pipe holds, lines whole and in order', async () => {
    const lines: string[] = [];
    const server = stdioServer({ stderr: 'pipe', onStderr: (line) => lines.push(line) });
    const output = await server.callTool('flood', { kib: 512 });
    expect(output.text).toBe('flooded');
    await expect.poll(() => lines.at(-1)).toBe('stderr-server: flood done');
    const flood = lines.filter((line) => line.startsWith('x'));
    expect(flood).toHaveLength(512);
    expect(flood.every((line) => line === 'x'.repeat(1023))).toBe(true);
  });

  it('pipe: decodes UTF-8 and CRLF, and hands over a last line without a line ending at the end', async () => {
    const lines: string[] = [];
    const server = stdioServer({ stderr: 'pipe', onStderr: (line) => lines.push(line) });
    await server.callTool('log', { text: 'grüße ✓\r\nno line ending' });
    await expect.poll(() => lines).toContain('grüße ✓');
    expect(lines).not.toContain('no line ending');
    await server.close();
    await expect.poll(() => lines.at(-1)).toBe('no line ending');
  });

  it('pipe: a throwing onStderr is reported and reading goes on', async () => {
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    const lines: string[] = [];
    const server = stdioServer({
      stderr: 'pipe',
      onStderr: (line) => {
        lines.push(line);
        throw new Error(`reader failed on ${line}`);
      },
    });
    expect((await server.callTool('log', { text: 'one\ntwo\n' })).text).toBe('logged');
    await expect.poll(() => lines).toContain('two');
    expect(reported).toHaveBeenCalledWith(new Error('reader failed on two'));
  });

  it('ignore: a server that logs more than a pipe holds still answers', async () => {
    const server = stdioServer({ stderr: 'ignore' });
    expect((await server.callTool('flood', { kib: 512 })).text).toBe('flooded');
  });

  it("refuses 'pipe' without onStderr, and an unknown mode, as invalid_input", () => {
    const pipe = { command: 'node', stderr: 'pipe' } as unknown as Parameters<
      typeof stdioTransport
    >[0];
    expect(() => stdioTransport(pipe)).toThrow(/needs an onStderr function/);
    const odd = { command: 'node', stderr: 'overlapped' } as unknown as Parameters<
      typeof stdioTransport
    >[0];
    let error: unknown;
    try {
      nodeMcpServer({ name: 'odd', ...odd });
    } catch (caught) {
      error = caught;
    }
    expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
  });
});
