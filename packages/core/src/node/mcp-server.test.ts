import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { startScriptedModelServer } from '@switchboard/fixtures';
import { nodeMcpServer } from './mcp-server.ts';

const require = createRequire(import.meta.url);
const everythingEntry = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

describe('mcpServer from @switchboard/core/node', () => {
  it('runs server-everything over stdio for an agent, and close() ends the child process', async () => {
    const server = nodeMcpServer({
      name: 'everything',
      command: process.execPath,
      args: [everythingEntry, 'stdio'],
    });
    const model = await startScriptedModelServer();
    try {
      const agent = new Agent({
        name: 'stdio',
        model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
        mcpServers: [server],
      });
      const result = await agent.execute({ messages: 'what is 2 plus 3?' }).result();
      expect(result.status).toBe('completed');
      const output = result.output.find((item) => item.type === 'function_call_output');
      expect(output).toMatchObject({ output: { text: 'The sum of 2 and 3 is 5.' } });
      expect(server.getSnapshot()).toMatchObject({ status: 'connected', transport: 'custom' });
    } finally {
      await server.close();
      await model.close();
    }
    expect(server.getSnapshot().status).toBe('closed');
  });

  it('still builds an HTTP server from a url', () => {
    const server = nodeMcpServer({ url: 'http://127.0.0.1:9/mcp', name: 'http' });
    expect(server.url?.href).toBe('http://127.0.0.1:9/mcp');
  });
});
