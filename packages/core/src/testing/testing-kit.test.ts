import { McpServer as SdkMcpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent/agent.ts';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import { tool } from '../tools/tool.ts';
import { collectRun, ofType } from './collect-run.ts';
import { linkedMcpServer } from './linked-mcp-server.ts';
import { failedTurn, mockModel, textTurn, toolCallTurn } from './mock-model.ts';

const servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An SDK server with a side-effecting tool that counts its runs. */
function filesServer(deleted: string[]): McpServer {
  const server = linkedMcpServer({
    name: 'files',
    approvalRequiredTools: ['delete_file'],
    createServer: () => {
      const sdk = new SdkMcpServer({ name: 'files', version: '1.0.0' });
      sdk.registerTool(
        'delete_file',
        { description: 'Deletes a file', inputSchema: z.object({ path: z.string() }) },
        ({ path }) => {
          deleted.push(path);
          return { content: [{ type: 'text', text: `deleted ${path}` }] };
        },
      );
      return sdk;
    },
  });
  servers.push(server);
  return server;
}

describe('@switchboard/core/testing', () => {
  it('failedTurn fails a model call the agent retries (429) or not (401)', async () => {
    const model = mockModel([failedTurn(429, { retryAfterMs: 0 }), textTurn('Got through.')]);
    const agent = new Agent({ name: 'test', model });
    const { chunks, result } = await collectRun(agent.execute({ messages: 'hi' }));
    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'model.retry')).toEqual([
      expect.objectContaining({ model: 'mock/mock', attempt: 2, delayMs: 0, status: 429 }),
    ]);
    expect(model.requests).toHaveLength(2);

    const refused = mockModel([failedTurn(401), textTurn('never')]);
    const failed = await collectRun(
      new Agent({ name: 'test', model: refused }).execute({ messages: 'hi' }),
    );
    expect(failed.result.error?.details).toEqual({ status: 401 });
    expect(ofType(failed.chunks, 'model.retry')).toEqual([]);
    expect(refused.requests).toHaveLength(1);
  });

  it('mockModel streams its turns and records requests; collectRun drains a run', async () => {
    const getTime = tool({
      name: 'get_time',
      description: 'The time',
      input: z.object({}),
      execute: () => '12:00',
    });
    const model = mockModel([toolCallTurn('get_time', {}), textTurn('It is noon.')]);
    const agent = new Agent({ name: 'test', model, tools: [getTime] });

    const { chunks, result } = await collectRun(agent.execute({ messages: 'What time is it?' }));

    expect(result.status).toBe('completed');
    expect(ofType(chunks, 'text.done').map((chunk) => chunk.text)).toEqual(['It is noon.']);
    expect(ofType(chunks, 'tool.result').map((chunk) => chunk.output.text)).toEqual(['12:00']);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.tools.map((t) => t.name)).toContain('get_time');
    // The second request carries the tool's output for the call the first one made.
    expect(JSON.stringify(model.requests[1]?.items)).toContain('12:00');
  });

  it('a call past the last turn fails the run with model_error', async () => {
    const agent = new Agent({ name: 'test', model: mockModel([]) });
    const { result } = await collectRun(agent.execute({ messages: 'hi' }));
    expect(result.status).toBe('failed');
    expect(isSwitchboardError(result.error, 'model_error')).toBe(true);
    expect(result.error?.message).toContain('call 1 has none');
  });

  it('linkedMcpServer: an SDK server in memory, approval pause and resume, the tool runs once', async () => {
    const deleted: string[] = [];
    const server = filesServer(deleted);
    const model = mockModel([
      toolCallTurn([{ name: 'delete_file', arguments: { path: 'notes.txt' }, callId: 'c1' }]),
      textTurn('Done.'),
    ]);
    const agent = new Agent({ name: 'ops', model, mcpServers: [server] });

    const paused = await collectRun(agent.execute({ threadId: 't', messages: 'delete notes.txt' }));
    expect(paused.result.status).toBe('paused');
    expect(paused.result.interrupts?.map((interrupt) => interrupt.callId)).toEqual(['c1']);
    expect(deleted).toEqual([]);

    const resumed = await collectRun(
      agent.execute({ threadId: 't', resolutions: [{ callId: 'c1', action: 'approve' }] }),
    );
    expect(resumed.result.status).toBe('completed');
    expect(deleted).toEqual(['notes.txt']);
    expect(ofType(resumed.chunks, 'tool.result')[0]?.output.text).toBe('deleted notes.txt');
  });

  it('linkedMcpServer reconnects with a fresh server after close()', async () => {
    const deleted: string[] = [];
    const server = filesServer(deleted);
    await server.callTool('delete_file', { path: 'a' });
    await server.close();
    await server.callTool('delete_file', { path: 'b' });
    expect(deleted).toEqual(['a', 'b']);
  });
});
