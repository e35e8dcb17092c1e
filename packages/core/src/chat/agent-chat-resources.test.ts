import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  scriptFromReplies,
  startDemoServer,
  startScriptedModelServer,
  type DemoServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mcpServer } from '../mcp/mcp-server.ts';
import { resourceParts } from '../mcp/resource-parts.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { AgentChat } from './agent-chat.ts';

// Issue 14, item 5: resources read from a real MCP server (the demo server, 127.0.0.1) attached
// to a user message reach the model (the scripted model server, over the Chat Completions wire)
// as text, an image and a reference, and the stored thread keeps them.

let demo: DemoServer;
let modelServer: ScriptedModelServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
  modelServer = await startScriptedModelServer({
    script: scriptFromReplies([{ text: 'Read them.' }]),
  });
});
afterAll(async () => {
  await Promise.all([demo.close(), modelServer.close()]);
});

describe('AgentChat.send with resources', () => {
  it('sends text, image and too-large resources to the model and keeps them in the thread', async () => {
    const server = mcpServer({ url: demo.modernUrl, name: 'demo' });
    const resources = [
      ...resourceParts(await server.readResource('demo://docs/readme'), { server: 'demo' }),
      ...resourceParts(await server.readResource('demo://images/pixel.png'), { server: 'demo' }),
      ...resourceParts(await server.readResource('demo://files/large.bin'), { server: 'demo' }),
    ];
    await server.close();
    expect(resources.map((part) => part.omitted)).toEqual([undefined, undefined, 'too_large']);

    const history = new MemoryHistoryStore();
    const model = openaiChatModel({
      baseURL: `${modelServer.url}/v1`,
      apiKey: 'x',
      model: 'scripted',
      maxRetries: 0,
    });
    const chat = new AgentChat(new Agent({ name: 'test', model, history }), { threadId: 't' });
    const result = await chat.send('Use these.', { resources });
    expect(result.status).toBe('completed');

    const body = modelServer.requests[0]?.body as {
      messages: { role: string; content: unknown }[];
    };
    const user = body.messages.find((message) => message.role === 'user');
    const content = user?.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(content.map((part) => part.type)).toEqual(['text', 'text', 'text', 'image_url', 'text']);
    expect(content[1]?.text).toContain('# Switchboard demo server');
    expect(content[3]?.image_url?.url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(content[4]?.text).toContain('demo://files/large.bin');
    expect(content[4]?.text).toContain('too large to include');

    expect(chat.getSnapshot().messages[0]?.parts.map((part) => part.type)).toEqual([
      'text',
      'resource',
      'resource',
      'resource',
    ]);
    const reloaded = new AgentChat(new Agent({ name: 'test', model, history }), { threadId: 't' });
    await reloaded.load();
    expect(reloaded.getSnapshot().messages[0]?.parts).toEqual([
      { type: 'text', text: 'Use these.' },
      {
        type: 'resource',
        uri: 'demo://docs/readme',
        mimeType: 'text/markdown',
        size: resources[0]?.size,
        server: 'demo',
      },
      {
        type: 'resource',
        uri: 'demo://images/pixel.png',
        mimeType: 'image/png',
        size: 70,
        server: 'demo',
      },
      {
        type: 'resource',
        uri: 'demo://files/large.bin',
        mimeType: 'application/octet-stream',
        size: 2097152,
        server: 'demo',
      },
    ]);
  });
});
