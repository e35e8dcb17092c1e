import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpServer } from '../mcp/mcp-server.ts';
import type { Model } from '../model/model.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { startEverythingServer, type EverythingServer } from '@switchboard/fixtures';
import { defaultModelScript, type ModelScript } from '@switchboard/fixtures';
import { startScriptedModelServer, type ScriptedModelServer } from '@switchboard/fixtures';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';
import type { Chunk } from './chunks.ts';
import type { RunHandle } from './run-result.ts';

const servers: ScriptedModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function scripted(
  script: ModelScript = defaultModelScript,
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({ script });
  servers.push(server);
  const model = openaiChatModel({
    baseURL: `${server.url}/v1`,
    apiKey: 'x',
    model: 'scripted',
    maxRetries: 0,
  });
  return { server, model };
}

async function collect(handle: RunHandle): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of handle.chunks) chunks.push(chunk);
  return chunks;
}

describe('Agent with an MCP server (@modelcontextprotocol/server-everything)', () => {
  let everything: EverythingServer;
  beforeAll(async () => {
    everything = await startEverythingServer();
  });
  afterAll(async () => {
    await everything.close();
  });

  it('answers "what is 2 plus 3?" through get-sum', async () => {
    const { server, model } = await scripted();
    const everythingTools = mcpServer({ url: everything.url, name: 'everything' });
    try {
      const agent = new Agent({ name: 'test', model, mcpServers: [everythingTools] });

      const handle = agent.execute({ messages: 'what is 2 plus 3?' });
      const chunks = await collect(handle);
      const result = await handle.result();

      expect(result.status, JSON.stringify(result.error?.message)).toBe('completed');
      const call = chunks.find((chunk) => chunk.type === 'tool.call');
      expect(call).toMatchObject({
        type: 'tool.call',
        toolName: 'get-sum',
        server: 'everything',
        arguments: { a: 2, b: 3 },
      });
      const toolResult = chunks.find((chunk) => chunk.type === 'tool.result');
      expect(toolResult).toMatchObject({
        type: 'tool.result',
        callId: call?.type === 'tool.call' ? call.callId : 'missing',
        toolName: 'get-sum',
        output: { text: 'The sum of 2 and 3 is 5.' },
      });
      expect(toolResult?.type === 'tool.result' && toolResult.output.isError).toBeFalsy();
      const finalText = chunks
        .flatMap((chunk) => (chunk.type === 'text.delta' ? [chunk.delta] : []))
        .join('');
      expect(finalText).toContain('The sum of 2 and 3 is 5.');
      expect(chunks.at(-1)?.type).toBe('run.completed');

      // The model was offered get-sum with the server's JSON Schema.
      const offered = server.requests[0]?.tools ?? [];
      const getSum = offered.find((entry) => entry.function.name === 'get-sum');
      expect(getSum?.type).toBe('function');
      expect(getSum?.function.parameters).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: expect.arrayContaining(['a', 'b']),
      });
      expect(offered.map((entry) => entry.function.name)).toContain('echo');
      for (const entry of offered) expect(entry.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

      // The model read the server's text in the tool message.
      const toolMessage = server.requests[1]?.messages.find((message) => message.role === 'tool');
      expect(toolMessage?.content).toBe('The sum of 2 and 3 is 5.');
    } finally {
      await everythingTools.close();
    }
  });

  it('fails with invalid_input when a local tool and an MCP tool share a name', async () => {
    const { server, model } = await scripted();
    const everythingTools = mcpServer({ url: everything.url, name: 'everything' });
    try {
      const localSum = tool({
        name: 'get-sum',
        description: 'A local adder.',
        input: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => String(a + b),
      });
      const agent = new Agent({
        name: 'test',
        model,
        tools: [localSum],
        mcpServers: [everythingTools],
      });

      const handle = agent.execute({ messages: 'what is 2 plus 3?' });
      const chunks = await collect(handle);
      const result = await handle.result();

      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('invalid_input');
      expect(result.error?.message).toContain('"get-sum"');
      expect(result.error?.message).toContain('everything');
      expect(result.error?.message).toContain('toolPrefix');
      expect(chunks.map((chunk) => chunk.type)).toEqual(['run.started', 'run.failed']);
      const failed = chunks.at(-1);
      expect(failed?.type === 'run.failed' && failed.error.code).toBe('invalid_input');
      expect(server.requests).toHaveLength(0);
    } finally {
      await everythingTools.close();
    }
  });

  it('a toolPrefix resolves the clash', async () => {
    const { server, model } = await scripted();
    const everythingTools = mcpServer({
      url: everything.url,
      name: 'everything',
      toolPrefix: 'everything_',
    });
    try {
      const localSum = tool({
        name: 'get-sum',
        description: 'A local adder.',
        input: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => `local says ${a + b}`,
      });
      const agent = new Agent({
        name: 'test',
        model,
        tools: [localSum],
        mcpServers: [everythingTools],
      });

      const result = await agent.execute({ messages: 'what is 2 plus 3?' }).result();

      expect(result.status).toBe('completed');
      const names = (server.requests[0]?.tools ?? []).map((entry) => entry.function.name);
      expect(names).toContain('get-sum');
      expect(names).toContain('everything_get-sum');
    } finally {
      await everythingTools.close();
    }
  });
});
