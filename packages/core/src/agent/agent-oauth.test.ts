import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentChat } from '../chat/agent-chat.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { MemorySchemaCache } from '../mcp/memory-schema-cache.ts';
import { nodeOAuthProvider, type NodeOAuthProvider } from '../node/node-oauth-provider.ts';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { Agent } from './agent.ts';
import { closeScriptedModelServers, finish, ofType, scripted } from './agent-test-support.ts';

/**
 * The agent loop against a real OAuth-protected MCP server: the demo server's `/protected/mcp`
 * behind the test authorization server (consent `auto`: the authorization endpoint redirects at
 * once), with the Node provider's loopback listener as the redirect URI.
 */
describe('Agent with an OAuth-protected MCP server', () => {
  let demo: DemoServer;
  const providers: NodeOAuthProvider[] = [];

  beforeAll(async () => {
    demo = await startDemoServer({ toolCount: 0, oauth: { consent: 'auto' } });
  });
  afterEach(async () => {
    await closeScriptedModelServers();
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
  });
  afterAll(async () => {
    await demo.close();
  });

  /** A Node provider whose "browser" follows the authorization redirect to the loopback listener. */
  async function signInProvider(serverUrl = protectedUrl()): Promise<NodeOAuthProvider> {
    const provider = await nodeOAuthProvider({
      serverUrl,
      openBrowser: async (url) => {
        const answer = await fetch(url, { redirect: 'manual' });
        await answer.body?.cancel();
        const location = answer.headers.get('location');
        if (location === null) throw new Error(`No redirect from the authorization endpoint.`);
        await (await fetch(new URL(location, url))).text();
      },
    });
    providers.push(provider);
    return provider;
  }

  /**
   * A signed-in `demo-oauth` server (scope `mcp:tools`) and an agent whose scripted model calls
   * `reset_demo_data` (which needs `mcp:admin`: a step-up), then answers `finalText`.
   */
  async function signedInResetAgent(
    finalText: string,
    options: { approvalRequiredTools?: string[] } = {},
  ): Promise<{ server: McpServer; agent: Agent }> {
    const authProvider = await signInProvider();
    const server = mcpServer({ url: protectedUrl(), name: 'demo-oauth', authProvider, ...options });
    await server.authorize();
    const { model } = await scripted([
      { toolCalls: [{ name: 'reset_demo_data', arguments: {} }] },
      { text: finalText },
    ]);
    return { server, agent: new Agent({ name: 'test', model, mcpServers: [server] }) };
  }

  function protectedUrl(): string {
    if (demo.protectedUrl === undefined) throw new Error('The demo server has no OAuth endpoint.');
    return demo.protectedUrl;
  }

  it('goes on without the tools of a server that needs sign-in, then uses them once signed in', async () => {
    const authProvider = await signInProvider();
    const server = mcpServer({
      url: protectedUrl(),
      name: 'demo-oauth',
      authProvider,
      toolFilter: ['get_weather'],
    });
    const { model, server: modelServer } = await scripted([
      { text: 'I cannot check the weather right now.' },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'Sunny.' },
    ]);
    const agent = new Agent({ name: 'test', model, mcpServers: [server] });
    try {
      const first = await finish(agent.execute({ threadId: 't1', messages: 'weather in Paris?' }));
      expect(first.result.status).toBe('completed');
      expect(ofType(first.chunks, 'server.needs_auth')).toEqual([
        expect.objectContaining({ server: 'demo-oauth' }),
      ]);
      expect(modelServer.requests[0]?.tools ?? []).toEqual([]);
      expect(server.getSnapshot().status).toBe('needs-auth');

      expect(await server.authorize()).toBe('authorized');
      expect(server.getSnapshot().status).toBe('connected');
      expect(server.getSnapshot().account).toMatchObject({
        signedIn: true,
        issuer: demo.authorizationServerUrl,
      });

      const second = await finish(agent.execute({ threadId: 't1', messages: 'and now?' }));
      expect(second.result.status).toBe('completed');
      expect(ofType(second.chunks, 'tool.result')[0]?.output.isError).not.toBe(true);
    } finally {
      await server.close();
    }
  });

  it('pauses a call that needs more scope with an authorization interrupt, and makes it again after sign-in', async () => {
    const { server, agent } = await signedInResetAgent('Reset.');
    try {
      const paused = await finish(agent.execute({ threadId: 't2', messages: 'reset the demo' }));
      expect(paused.result.status).toBe('paused');
      const [interrupt] = paused.result.interrupts;
      expect(interrupt).toMatchObject({
        mode: 'authorization',
        server: 'demo-oauth',
        toolName: 'reset_demo_data',
      });
      // One call needs more scope: the server stays usable for the others.
      expect(server.getSnapshot().status).toBe('connected');

      // Step-up (MCP authorization: 403 insufficient_scope): the user consents to mcp:admin.
      expect(await server.authorize()).toBe('authorized');
      expect(server.getSnapshot().account?.scope).toContain('mcp:admin');
      const resumed = await finish(
        agent.execute({
          threadId: 't2',
          resolutions: [{ callId: interrupt?.callId ?? '', action: 'approve' }],
        }),
      );
      expect(resumed.result.status).toBe('completed');
      const result = ofType(resumed.chunks, 'tool.result')[0];
      expect(result?.output.isError).not.toBe(true);
    } finally {
      await server.close();
    }
  });

  it('names the server in the authorization interrupt of a call that was approved first', async () => {
    const { server, agent } = await signedInResetAgent('Reset.', {
      approvalRequiredTools: ['reset_demo_data'],
    });
    try {
      const held = await finish(agent.execute({ threadId: 't5', messages: 'reset the demo' }));
      const callId = held.result.interrupts[0]?.callId ?? '';
      expect(held.result.interrupts[0]).toMatchObject({ mode: 'approval', server: 'demo-oauth' });
      // The approved call runs in the resumed run and meets the step-up there.
      const approved = await finish(
        agent.execute({ threadId: 't5', resolutions: [{ callId, action: 'approve' }] }),
      );
      expect(approved.result.interrupts).toEqual([
        expect.objectContaining({ callId, mode: 'authorization', server: 'demo-oauth' }),
      ]);
    } finally {
      await server.close();
    }
  });

  it('connects a server waiting for sign-in when the same account signs in elsewhere', async () => {
    const authProvider = await signInProvider();
    const first = mcpServer({ url: protectedUrl(), name: 'first', authProvider });
    const second = mcpServer({ url: protectedUrl(), name: 'second', authProvider });
    try {
      await second.connect().catch(() => undefined);
      expect(second.getSnapshot().status).toBe('needs-auth');
      const connected = new Promise<void>((resolve) => {
        const stop = second.subscribe(() => {
          if (second.getSnapshot().status !== 'connected') return;
          stop();
          resolve();
        });
      });
      expect(await first.authorize()).toBe('authorized');
      await connected;
      expect(second.getSnapshot().account?.signedIn).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('AgentChat lists servers waiting for sign-in, and authorizeAndResume signs in and makes the call again', async () => {
    const authProvider = await signInProvider();
    const server = mcpServer({ url: protectedUrl(), name: 'demo-oauth', authProvider });
    const { model } = await scripted([
      { text: 'No tools yet.' },
      { toolCalls: [{ name: 'reset_demo_data', arguments: {} }] },
      { text: 'Reset.' },
    ]);
    const chat = new AgentChat(new Agent({ name: 'test', model, mcpServers: [server] }));
    const stop = chat.subscribe(() => undefined);
    try {
      await chat.send('hello');
      expect(chat.getSnapshot().serversNeedingAuth).toEqual(['demo-oauth']);
      expect(await chat.connect('demo-oauth')).toBe('authorized');
      expect(chat.getSnapshot().serversNeedingAuth).toEqual([]);

      const paused = await chat.send('reset the demo');
      expect(paused.status).toBe('paused');
      const [interrupt] = chat.getSnapshot().interrupts;
      expect(interrupt).toMatchObject({ mode: 'authorization', server: 'demo-oauth' });
      const resumed = await chat.authorizeAndResume(interrupt?.callId ?? '');
      expect(resumed?.status).toBe('completed');
      expect(chat.getSnapshot().interrupts).toEqual([]);
      await expect(chat.connect('nope')).rejects.toMatchObject({ code: 'invalid_input' });
    } finally {
      stop();
      await server.close();
    }
  });

  it('fails a call as declined when the user declines to sign in', async () => {
    const { server, agent } = await signedInResetAgent('Not reset.');
    try {
      const paused = await finish(agent.execute({ threadId: 't3', messages: 'reset the demo' }));
      const callId = paused.result.interrupts[0]?.callId ?? '';
      const resumed = await finish(
        agent.execute({ threadId: 't3', resolutions: [{ callId, action: 'reject' }] }),
      );
      expect(resumed.result.status).toBe('completed');
      expect(ofType(resumed.chunks, 'tool.result')[0]?.output).toMatchObject({
        isError: true,
        error: { code: 'declined' },
      });
    } finally {
      await server.close();
    }
  });

  it('keeps tokens out of history, errors, the schema cache and its keys', async () => {
    const tokens: string[] = [];
    const authProvider = await signInProvider();
    const saveTokens = authProvider.saveTokens.bind(authProvider);
    authProvider.saveTokens = async (saved, context) => {
      tokens.push(
        saved.access_token,
        ...(saved.refresh_token === undefined ? [] : [saved.refresh_token]),
      );
      await saveTokens(saved, context);
    };
    const history = new MemoryHistoryStore();
    const cached: unknown[] = [];
    const schemaCache = new MemorySchemaCache();
    const set = schemaCache.set.bind(schemaCache);
    schemaCache.set = async (key, entry, options) => {
      cached.push({ key, entry });
      await set(key, entry, options);
    };
    const server = mcpServer({
      url: protectedUrl(),
      name: 'demo-oauth',
      authProvider,
      schemaCache,
      toolFilter: ['get_weather', 'reset_demo_data'],
    });
    await server.authorize();
    const { model } = await scripted([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { toolCalls: [{ name: 'reset_demo_data', arguments: {} }] },
    ]);
    const agent = new Agent({ name: 'test', model, mcpServers: [server], history });
    try {
      const run = await finish(agent.execute({ threadId: 't4', messages: 'weather, then reset' }));
      expect(run.result.status).toBe('paused');
      expect(tokens.length).toBeGreaterThan(0);
      expect(cached.length).toBeGreaterThan(0);
      const exported = JSON.stringify({
        runs: await history.loadRuns('t4'),
        chunks: run.chunks,
        snapshot: server.getSnapshot(),
        cache: cached,
        provider: authProvider,
        providerText: String(authProvider),
      });
      for (const token of tokens) expect(exported).not.toContain(token);
    } finally {
      await server.close();
    }
  });

  it('refreshes an expired token once for concurrent calls (refresh tokens rotate)', async () => {
    const shortLived = await startDemoServer({
      toolCount: 0,
      oauth: { consent: 'auto', accessTokenTtlMs: 5_000 },
    });
    const url = shortLived.protectedUrl ?? '';
    const authProvider = await signInProvider(url);
    const server = mcpServer({ url, name: 'demo-oauth', authProvider });
    try {
      await server.authorize();
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      const outputs = await Promise.all(
        ['Oslo', 'Paris', 'Rome', 'Lima', 'Pune'].map((city) =>
          server.callTool('get_weather', { city }),
        ),
      );
      for (const output of outputs) expect(output.isError).not.toBe(true);
      expect(shortLived.authorizationServer?.tokenRequestCount('refresh_token')).toBe(1);
      expect(server.getSnapshot().status).toBe('connected');
    } finally {
      await server.close();
      await shortLived.close();
    }
  });
});
