import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { Tool } from '../tools/tool-types.ts';
import { RunToolset } from './run-toolset.ts';

const mcpTool = (name: string, deferred = false): Tool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  server: 'fake',
  ...(deferred ? { deferred: true } : {}),
  execute: () => Promise.resolve(name),
});

/** A server whose `listTools` answers `lists` (or throws `failure`), counting its calls. */
function fakeServer() {
  const state: { tools: Tool[]; failure?: Error; listings: number } = { tools: [], listings: 0 };
  const server = {
    name: 'fake',
    getSnapshot: () => ({ status: 'connected', completedElicitations: [], tools: state.tools }),
    listTools: () => {
      state.listings++;
      return state.failure === undefined
        ? Promise.resolve(state.tools)
        : Promise.reject(state.failure);
    },
  } as unknown as McpServer;
  return { server, state };
}

function runToolset(server: McpServer, known: [string, string][] = []) {
  const needsAuth: string[] = [];
  const tools = new RunToolset({
    agent: { name: 'a', model: {} as never, mcpServers: [server] },
    runContext: undefined,
    signal: new AbortController().signal,
    activated: [],
    known,
    onNeedsAuth: (name) => needsAuth.push(name),
  });
  return { tools, needsAuth };
}

describe('RunToolset', () => {
  it('reuses the same Toolset while the lists are the same arrays, builds anew when one changes', async () => {
    const { server, state } = fakeServer();
    state.tools = [mcpTool('a')];
    const { tools } = runToolset(server);
    const first = await tools.current();
    expect(await tools.current()).toBe(first);
    state.tools = [mcpTool('a'), mcpTool('b')];
    const second = await tools.current();
    expect(second).not.toBe(first);
    expect(second.get('b')).toBeDefined();
  });

  it('keeps activated deferred tools, also across a removal and return', async () => {
    const { server, state } = fakeServer();
    const deferredA = mcpTool('a', true);
    state.tools = [deferredA, mcpTool('b', true)];
    const { tools } = runToolset(server);
    const first = await tools.current();
    first.activated.add('a');
    state.tools = [mcpTool('b', true)];
    const second = await tools.current();
    expect(second.removedBy('a')).toBe('fake');
    state.tools = [deferredA, mcpTool('b', true), mcpTool('c', true)];
    const third = await tools.current();
    expect(third.removedBy('a')).toBeUndefined();
    expect(third.modelTools().map((candidate) => candidate.name)).toContain('a');
  });

  it('a failed mid-run listing keeps the tools and is not retried until the snapshot changes', async () => {
    const { server, state } = fakeServer();
    state.tools = [mcpTool('a')];
    const { tools, needsAuth } = runToolset(server);
    const first = await tools.current();
    state.failure = new SwitchboardError('needs_auth', 'Sign in.');
    expect(await tools.current()).toBe(first);
    expect(await tools.current()).toBe(first);
    expect(state.listings).toBe(2);
    expect(needsAuth).toEqual(['fake']);
    delete state.failure;
    state.tools = [mcpTool('b')];
    const next = await tools.current();
    expect(next.get('b')).toBeDefined();
    expect(next.removedBy('a')).toBe('fake');
  });

  it('a first listing that fails (not needs_auth) fails; needs_auth goes on without the server', async () => {
    const broken = fakeServer();
    broken.state.failure = new SwitchboardError('http_status', 'Boom.');
    await expect(runToolset(broken.server).tools.current()).rejects.toThrow('Boom.');
    const locked = fakeServer();
    locked.state.failure = new SwitchboardError('needs_auth', 'Sign in.');
    const { tools, needsAuth } = runToolset(locked.server);
    expect((await tools.current()).modelTools()).toEqual([]);
    expect(needsAuth).toEqual(['fake']);
  });

  it('a known tool (a resumed run) missing from the list counts as removed', async () => {
    const { server, state } = fakeServer();
    state.tools = [mcpTool('a')];
    const { tools } = runToolset(server, [
      ['gone', 'fake'],
      ['a', 'fake'],
    ]);
    const toolset = await tools.current();
    expect(toolset.removedBy('gone')).toBe('fake');
    expect(toolset.removedBy('a')).toBeUndefined();
  });
});
