// Type-checked by a Node-only consumer: lib ES2023 without DOM, types node, module nodenext,
// strict, skipLibCheck false. Uses the root entry, /node, /openai, /anthropic, /server and
// /testing.
import {
  Agent,
  IndexedDbHistoryStore,
  MemoryHistoryStore,
  isSwitchboardError,
  mcpServer,
  tool,
  type Chunk,
  type RunResult,
} from '@switchboard/core';
import { anthropicModel } from '@switchboard/core/anthropic';
import { JsonlHistoryStore, nodeOAuthProvider } from '@switchboard/core/node';
import { openaiChatModel, openaiResponsesModel } from '@switchboard/core/openai';
import { agentRequestHandler, type AgentRequestHandler } from '@switchboard/core/server';
import { collectRun, mockModel, ofType, textTurn, toolCallTurn } from '@switchboard/core/testing';
import { z } from 'zod';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

export const agents: Agent[] = [
  new Agent({
    name: 'a',
    model: openaiChatModel({ model: 'gpt-4.1-mini', apiKey: 'k' }),
    tools: [add],
    mcpServers: [mcpServer({ url: 'http://127.0.0.1:1/mcp', headers: { 'x-key': 'v' } })],
    history: new JsonlHistoryStore({ directory: '/tmp/threads' }),
  }),
  new Agent({ name: 'b', model: openaiResponsesModel({ model: 'gpt-4.1', apiKey: 'k' }) }),
  new Agent({ name: 'c', model: anthropicModel({ model: 'claude-sonnet-4-5', apiKey: 'k' }) }),
  new Agent({
    name: 'd',
    model: mockModel([toolCallTurn('add', { a: 1, b: 2 }), textTurn('3')]),
    history: new MemoryHistoryStore(),
  }),
];
export const handler: AgentRequestHandler = agentRequestHandler(agents[0] as Agent, {
  basePath: '/agent',
  authorize: (request) =>
    request.headers.get('authorization') === null
      ? new Response(null, { status: 401 })
      : { runContext: { user: 'u' } },
});
export const stores = [IndexedDbHistoryStore];
export const provider = nodeOAuthProvider;

export async function runOnce(agent: Agent): Promise<RunResult> {
  const { chunks, result } = await collectRun(agent.execute({ messages: 'hi' }));
  const texts: string[] = ofType(chunks, 'text.delta').map((chunk) => chunk.delta);
  const first: Chunk | undefined = chunks[0];
  if (result.error !== undefined && isSwitchboardError(result.error, 'model_error')) {
    return result;
  }
  void texts;
  void first;
  return result;
}
