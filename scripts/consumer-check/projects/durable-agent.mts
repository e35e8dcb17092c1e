// A consumer of @switchboard/restate, type-checked only (module nodenext, skipLibCheck false):
// the worker's side (a Restate virtual object running the agent, history in PostgreSQL, chunks
// in Redis) and the front's side (restateAgent served to browsers with agentRequestHandler).
// Running it needs Node 22 and a restate-server; packages/restate's tests do that.
import { createServer } from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import type { AgentEndpoint, RunHandle } from '@switchboard/core';
import { agentRequestHandler } from '@switchboard/core/server';
import { mockModel, textTurn } from '@switchboard/core/testing';
import { PostgresHistoryStore } from '@switchboard/postgres';
import { agentObject, RedisChunkLog, restateAgent } from '@switchboard/restate';

const history = new PostgresHistoryStore({ connectionString: 'postgres://127.0.0.1/agents' });
const chunks = new RedisChunkLog({ url: 'redis://127.0.0.1:6379' });

export function serveWorker(port: number) {
  const object = agentObject({
    agent: { name: 'support', model: mockModel([textTurn('Done.')]) },
    history,
    chunks,
  });
  return createServer(restate.createEndpointHandler({ services: [object] })).listen(
    port,
    '127.0.0.1',
  );
}

export function front(): (request: Request) => Promise<Response> {
  const endpoint: AgentEndpoint = restateAgent({
    ingressUrl: 'http://127.0.0.1:8080',
    adminUrl: 'http://127.0.0.1:9070',
    history,
    chunks,
  });
  return agentRequestHandler(endpoint, { basePath: '/agent' });
}

export function ask(endpoint: AgentEndpoint, text: string): RunHandle {
  return endpoint.execute({ threadId: 'thread-1', messages: text });
}
