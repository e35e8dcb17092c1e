import { mcpServer, Store, type McpServerSnapshot } from '@switchboard/core';
import { nodeOAuthProvider } from '@switchboard/core/node';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeMcpServer } from './fake-mcp-server-test-support.ts';
import { useMcpServerStatus } from './use-mcp-server-status.ts';

describe('useMcpServerStatus', () => {
  let demo: DemoServer | undefined;
  afterEach(async () => {
    cleanup();
    await demo?.close();
    demo = undefined;
  });

  it('follows the server snapshot through connect()', async () => {
    const server = new FakeMcpServer(['a']);
    const { result } = renderHook(() => useMcpServerStatus(server));
    expect(result.current.status).toBe('idle');
    await act(async () => {
      await result.current.connect();
    });
    expect(result.current).toMatchObject({ status: 'connected', serverInfo: { name: 'fake' } });
    expect(server.connectCalls).toBe(1);
  });

  it('connect() never rejects: a failure shows as status error', async () => {
    const server = new FakeMcpServer([]);
    server.failConnect = true;
    const { result } = renderHook(() => useMcpServerStatus(server));
    await act(async () => {
      await expect(result.current.connect()).resolves.toBeUndefined();
    });
    expect(result.current.status).toBe('error');
    expect(result.current.error?.code).toBe('connection_refused');
  });

  it('shows a real MCP server connecting and its negotiated protocol', async () => {
    demo = await startDemoServer({ toolCount: 0 });
    const server = mcpServer({ url: demo.modernUrl, name: 'demo' });
    const { result } = renderHook(() => useMcpServerStatus(server));
    await act(async () => {
      await result.current.connect();
    });
    await waitFor(() => expect(result.current.status).toBe('connected'));
    expect(result.current.protocolEra).toBeDefined();
    expect(result.current.serverInfo?.name).toBeTruthy();
    await act(async () => {
      await server.close();
    });
    expect(result.current.status).toBe('closed');
  });

  it("follows a server built on core's Store (bound subscribe and getSnapshot)", async () => {
    const server = new StoreBackedServer();
    const { result } = renderHook(() => useMcpServerStatus(server));
    expect(result.current.status).toBe('idle');
    await act(async () => {
      await result.current.connect();
    });
    expect(result.current.status).toBe('connected');
  });

  it('throws a clear error without a server', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() =>
      renderHook(() => useMcpServerStatus(undefined as unknown as FakeMcpServer)),
    ).toThrow(/useMcpServerStatus needs an McpServer/);
    vi.restoreAllMocks();
  });

  it('signs in and out of a real OAuth-protected server: needs-auth, authorize(), account, signOut()', async () => {
    demo = await startDemoServer({ toolCount: 0, oauth: { consent: 'auto' } });
    const url = demo.protectedUrl ?? '';
    const authProvider = await nodeOAuthProvider({
      serverUrl: url,
      // The "browser": the authorization endpoint answers with a redirect to the loopback listener.
      openBrowser: async (address) => {
        const answer = await fetch(address, { redirect: 'manual' });
        await answer.body?.cancel();
        await (await fetch(new URL(answer.headers.get('location') ?? '', address))).text();
      },
    });
    const server = mcpServer({ url, name: 'demo-oauth', authProvider });
    try {
      const { result } = renderHook(() => useMcpServerStatus(server));
      await act(async () => {
        await result.current.connect();
      });
      expect(result.current.status).toBe('needs-auth');
      expect(result.current.error?.code).toBe('needs_auth');
      await act(async () => {
        await expect(result.current.authorize()).resolves.toBe('authorized');
      });
      expect(result.current.status).toBe('connected');
      await waitFor(() => expect(result.current.account?.signedIn).toBe(true));
      expect(result.current.account?.scope).toBe('mcp:tools');
      await act(async () => {
        await result.current.signOut();
      });
      await waitFor(() => expect(result.current.account?.signedIn).toBe(false));
      expect(result.current.status).toBe('idle');
    } finally {
      await server.close();
      await authProvider.close();
    }
  });

  it('authorize() and signOut() reject for a server without an interactive auth provider', async () => {
    const server = new FakeMcpServer([]);
    const { result } = renderHook(() => useMcpServerStatus(server));
    await expect(result.current.authorize()).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(result.current.signOut()).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

/** The shape McpServer takes on core's Store: `subscribe` and `getSnapshot` are bound. */
class StoreBackedServer extends Store<McpServerSnapshot> {
  constructor() {
    super({ status: 'idle', completedElicitations: [] });
  }

  connect(): Promise<void> {
    this.set((snapshot) => ({ ...snapshot, status: 'connected' }));
    return Promise.resolve();
  }

  listTools(): Promise<never[]> {
    return Promise.resolve([]);
  }
}
