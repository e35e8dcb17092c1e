import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startDemoServer,
  startEverythingServer,
  type DemoServer,
  type EverythingServer,
} from '@switchboard/fixtures';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer, type McpServer, type McpServerOptions } from './mcp-server.ts';
import { DEFAULT_MAX_RESOURCE_BYTES } from './resource-types.ts';

// Issue 14, item 5: resources, templates, subscriptions, prompts and completion against the demo
// server over real HTTP on 127.0.0.1, on both protocol eras.

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

function server(url: string, options: Partial<McpServerOptions> = {}): McpServer {
  const created = mcpServer({ url, name: 'demo', ...options });
  opened.push(created);
  return created;
}

async function bumpCounter(): Promise<number> {
  const response = await fetch(`${demo.url}/control/resources/bump`, { method: 'POST' });
  return ((await response.json()) as { counter: number }).counter;
}

const eras = [
  ['legacy (2025-11-25)', () => demo.legacyUrl],
  ['modern (2026-07-28)', () => demo.modernUrl],
] as const;

describe.each(eras)('McpServer resources and prompts, %s', (_era, url) => {
  it('lists resources and templates with MIME types and sizes', async () => {
    const client = server(url());
    const resources = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      'demo://docs/readme',
      'demo://images/pixel.png',
      'demo://files/large.bin',
      'demo://status/counter',
    ]);
    const pixel = resources.find((resource) => resource.name === 'pixel');
    expect(pixel).toMatchObject({ mimeType: 'image/png', title: 'A one-pixel PNG' });
    expect(pixel?.size).toBeGreaterThan(0);
    expect(resources.find((resource) => resource.name === 'large-file')?.size).toBe(
      2 * 1024 * 1024,
    );
    const templates = await client.listResourceTemplates();
    expect(templates).toEqual([
      {
        uriTemplate: 'demo://notes/{topic}',
        name: 'note',
        title: 'Notes by topic',
        description: 'A short note on one topic.',
        mimeType: 'text/plain',
      },
    ]);
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('reads text and binary bodies with MIME type and size; a large one is not inlined', async () => {
    const client = server(url());
    const [readme] = await client.readResource('demo://docs/readme');
    expect(readme).toMatchObject({ uri: 'demo://docs/readme', mimeType: 'text/markdown' });
    expect(readme !== undefined && 'text' in readme ? readme.text : '').toContain(
      '# Switchboard demo server',
    );
    expect(readme?.size).toBe(new TextEncoder().encode((readme as { text: string }).text).length);

    const [pixel] = await client.readResource('demo://images/pixel.png');
    expect(pixel).toMatchObject({ mimeType: 'image/png', size: 70 });
    expect(pixel !== undefined && 'blob' in pixel ? atob(pixel.blob).length : 0).toBe(70);

    const [large] = await client.readResource('demo://files/large.bin');
    expect(large).toEqual({
      uri: 'demo://files/large.bin',
      mimeType: 'application/octet-stream',
      size: 2 * 1024 * 1024,
      omitted: 'too_large',
      kind: 'blob',
    });
    expect(2 * 1024 * 1024).toBeGreaterThan(DEFAULT_MAX_RESOURCE_BYTES);
    const [inlined] = await client.readResource('demo://files/large.bin', {
      maxBytes: 4 * 1024 * 1024,
    });
    expect(inlined !== undefined && 'blob' in inlined ? inlined.size : 0).toBe(2 * 1024 * 1024);
  });

  it('reads a templated resource', async () => {
    const [note] = await server(url()).readResource('demo://notes/agents');
    expect(note).toMatchObject({ mimeType: 'text/plain', text: 'Notes on agents.' });
  });

  it('an unknown resource is an mcp_error that leaves the server connected', async () => {
    const client = server(url());
    const error = await client.readResource('demo://nowhere').catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'mcp_error')).toBe(true);
    expect(client.getSnapshot().status).toBe('connected');
    expect(await client.listResources()).toHaveLength(4);
  });

  it('hears notifications/resources/updated for a subscribed resource until closed', async () => {
    const client = server(url());
    const heard: string[] = [];
    let resolve: () => void = () => undefined;
    const updated = new Promise<void>((done) => (resolve = done));
    const subscription = await client.subscribeResource('demo://status/counter', (uri) => {
      heard.push(uri);
      resolve();
    });
    const counter = await bumpCounter();
    await updated;
    expect(heard).toEqual(['demo://status/counter']);
    const [body] = await client.readResource('demo://status/counter');
    expect(body).toMatchObject({ text: `counter=${counter}` });
    await subscription.close();
    await subscription.close();
  });

  it('lists prompts with their arguments and gets one filled in', async () => {
    const client = server(url());
    const prompts = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['summarize_topic', 'daily_briefing']);
    expect(prompts[0]?.arguments).toEqual([
      { name: 'topic', description: 'The topic', required: true },
      { name: 'style', description: 'How to write it', required: false },
    ]);
    expect(prompts[1]?.arguments).toEqual([]);
    const result = await client.getPrompt('summarize_topic', { topic: 'tasks', style: 'brief' });
    expect(result.messages).toEqual([
      { role: 'user', text: 'Summarize what the demo server knows about "tasks" (brief).' },
    ]);
  });

  it('completes prompt arguments and template variables', async () => {
    const client = server(url());
    const topic = await client.complete(
      { type: 'ref/prompt', name: 'summarize_topic' },
      { name: 'topic', value: 'a' },
    );
    expect(topic.values).toEqual(['agents', 'approvals']);
    const style = await client.complete(
      { type: 'ref/prompt', name: 'summarize_topic' },
      { name: 'style', value: 'b' },
      { context: { topic: 'agents' } },
    );
    expect(style.values).toEqual(['brief', 'bullet points']);
    const variable = await client.complete(
      { type: 'ref/resource', uri: 'demo://notes/{topic}' },
      { name: 'topic', value: 're' },
    );
    expect(variable.values).toEqual(['resources']);
  });

  it('a prompt without a required argument is an mcp_error', async () => {
    const error = await server(url())
      .getPrompt('summarize_topic', {})
      .catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'mcp_error')).toBe(true);
  });
});

describe('McpServer resources and prompts, the reference everything server', () => {
  let everything: EverythingServer;
  beforeAll(async () => {
    everything = await startEverythingServer();
  });
  afterAll(async () => {
    await everything.close();
  });

  it('lists, reads, gets and completes what it offers', async () => {
    const client = server(everything.url, { name: 'everything' });
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0];
    if (first === undefined) throw new Error('no resource listed');
    const bodies = await client.readResource(first.uri);
    expect(bodies[0]?.uri).toBe(first.uri);
    expect(bodies[0]?.size).toBeGreaterThan(0);
    const templates = await client.listResourceTemplates();
    expect(templates.map((template) => template.uriTemplate)).toEqual(
      expect.arrayContaining(['demo://resource/dynamic/text/{resourceId}']),
    );
    const [dynamic] = await client.readResource('demo://resource/dynamic/text/1');
    expect(dynamic).toMatchObject({ uri: 'demo://resource/dynamic/text/1' });
    expect(dynamic !== undefined && 'text' in dynamic ? dynamic.text.length : 0).toBeGreaterThan(0);
    const [blob] = await client.readResource('demo://resource/dynamic/blob/1');
    expect(blob !== undefined && 'blob' in blob ? blob.size : 0).toBeGreaterThan(0);

    const prompts = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(
      expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt']),
    );
    const args = prompts.find((prompt) => prompt.name === 'args-prompt');
    expect(args?.arguments.find((argument) => argument.name === 'city')?.required).toBe(true);
    const got = await client.getPrompt('args-prompt', { city: 'Paris' });
    expect(got.messages[0]?.text).toContain('Paris');
    const completable = prompts.find((prompt) => prompt.name === 'completable-prompt');
    const argument = completable?.arguments[0]?.name ?? '';
    const completion = await client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: argument, value: '' },
    );
    expect(completion.values.length).toBeGreaterThan(0);
  });
});
