import { mcpServer, type McpServer } from '@switchboard/core';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useMcpCompletion, useMcpPrompts } from './use-mcp-prompts.ts';
import { useMcpResource, useMcpResources } from './use-mcp-resources.ts';

// The resource and prompt hooks against the demo server over real HTTP on 127.0.0.1.

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  cleanup();
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

const LONG = { timeout: 10_000 };

function setup(url: string): {
  server: McpServer;
  wrapper: (props: { children: ReactNode }) => ReactNode;
} {
  const server = mcpServer({ url, name: 'demo' });
  opened.push(server);

  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return { server, wrapper };
}

describe.each([
  ['legacy', () => demo.legacyUrl],
  ['modern', () => demo.modernUrl],
])('resource and prompt hooks (%s era)', (_era, url) => {
  it('useMcpResources lists resources and templates', async () => {
    const { server, wrapper } = setup(url());
    const { result } = renderHook(() => useMcpResources(server), { wrapper });
    await waitFor(() => expect(result.current.isSuccess).toBe(true), LONG);
    expect(result.current.data?.resources.map((resource) => resource.name)).toEqual([
      'readme',
      'pixel',
      'large-file',
      'counter',
    ]);
    expect(result.current.data?.templates.map((template) => template.uriTemplate)).toEqual([
      'demo://notes/{topic}',
    ]);
  });

  it('useMcpResource reads a resource and, subscribed, refetches when it changes', async () => {
    const { server, wrapper } = setup(url());
    const { result } = renderHook(
      () => useMcpResource(server, 'demo://status/counter', { subscribe: true }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.isSuccess).toBe(true), LONG);
    const before = result.current.data?.[0];
    expect(before).toMatchObject({ uri: 'demo://status/counter', mimeType: 'text/plain' });
    // The subscription is opened after the first render: bump until an update reaches the hook
    // (an update sent before the subscription exists reaches nobody).
    let heard = false;
    for (let attempt = 0; attempt < 20 && !heard; attempt++) {
      const response = await fetch(`${demo.url}/control/resources/bump`, { method: 'POST' });
      const { counter } = (await response.json()) as { counter: number };
      heard = await waitFor(
        () => expect(result.current.data?.[0]).toMatchObject({ text: `counter=${counter}` }),
        { timeout: 500 },
      ).then(
        () => true,
        () => false,
      );
    }
    expect(heard).toBe(true);
  });

  it('useMcpPrompts lists prompts and useMcpCompletion suggests values', async () => {
    const { server, wrapper } = setup(url());
    const prompts = renderHook(() => useMcpPrompts(server), { wrapper });
    await waitFor(() => expect(prompts.result.current.isSuccess).toBe(true), LONG);
    expect(prompts.result.current.data?.map((prompt) => prompt.name)).toEqual([
      'summarize_topic',
      'daily_briefing',
    ]);
    const completion = renderHook(
      ({ value }: { value: string }) =>
        useMcpCompletion(
          server,
          { type: 'ref/prompt', name: 'summarize_topic' },
          {
            name: 'topic',
            value,
          },
        ),
      { wrapper, initialProps: { value: 'e' } },
    );
    await waitFor(
      () => expect(completion.result.current.data?.values).toEqual(['elicitation']),
      LONG,
    );
    completion.rerender({ value: 't' });
    await waitFor(() => expect(completion.result.current.data?.values).toEqual(['tasks']), LONG);
  });
});
