// One Switchboard agent whose runs happen on Restate workers (docs/scale.md, "Durable runs on
// Restate"), served to browsers with the same HTTP API as examples/agent-server. Two parts:
// the worker serves `agentObject` as a Restate deployment (every model call, MCP call and
// history write a journaled step), and the front serves `agentRequestHandler(restateAgent(…))`
// to the page. Both keep threads in PostgreSQL and chunks in Redis, so either runs anywhere.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import { createRequestListener } from '@remix-run/node-fetch-server';
import * as restate from '@restatedev/restate-sdk';
import { destructiveToolsNeedApproval, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { agentRequestHandler } from '@switchboard/core/server';
import { PostgresHistoryStore } from '@switchboard/postgres';
import { agentObject, RedisChunkLog, restateAgent } from '@switchboard/restate';

/**
 * Starts the worker: serves the agent as a Restate virtual object on `host:port` (HTTP/2
 * cleartext, as Restate calls deployments) and registers that address with Restate's admin API.
 *
 * @param {import('./restate-agent-server.d.mts').RestateWorkerOptions} options
 * @returns {Promise<import('./restate-agent-server.d.mts').RunningServer>}
 * @throws Error when the port is taken or the admin API refuses the deployment.
 */
export async function startRestateWorker(options) {
  const tools = mcpServer({ url: options.mcpUrl, name: 'demo', toolPrefix: 'demo_' });
  const history = new PostgresHistoryStore({ connectionString: options.databaseUrl });
  const chunks = new RedisChunkLog({ url: options.redisUrl });
  const object = agentObject({
    agent: {
      name: 'restate-server',
      instructions: 'Answer briefly. Use the tools when they help.',
      model: openaiChatModel({
        baseURL: options.modelBaseUrl,
        apiKey: options.apiKey ?? 'scripted',
        model: options.model ?? 'scripted',
      }),
      mcpServers: [tools],
      // Destructive and unannotated tools wait for the person in the browser (an awakeable).
      approvalPolicy: destructiveToolsNeedApproval,
    },
    history,
    chunks,
  });
  const server = createHttp2Server(restate.createEndpointHandler({ services: [object] }));
  // Restate keeps its HTTP/2 sessions open; closing ends them (a run in flight is retried by
  // Restate on the next worker registered at this address).
  const sessions = new Set();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const host = options.host ?? '127.0.0.1';
  await listen(server, options.port ?? 9080, host);
  const url = `http://${host}:${boundPort(server)}`;
  const close = async () => {
    const closed = new Promise((resolve) => server.close(() => resolve(undefined)));
    for (const session of sessions) session.destroy();
    await closed;
    await Promise.all([tools.close(), history.close(), chunks.close()]);
  };
  try {
    await register(options.adminUrl, options.advertisedUrl ?? url);
  } catch (error) {
    await close();
    throw error;
  }
  return { url, close };
}

/**
 * Starts the front: the agent's HTTP API for browsers (`remoteAgent({ url })`) on `host:port`;
 * every run is sent to Restate's ingress and its chunks are read from Redis.
 *
 * @param {import('./restate-agent-server.d.mts').RestateFrontOptions} options
 * @returns {Promise<import('./restate-agent-server.d.mts').RunningServer>} `url` is the API base.
 */
export async function startRestateFront(options) {
  const history = new PostgresHistoryStore({ connectionString: options.databaseUrl });
  const chunks = new RedisChunkLog({ url: options.redisUrl });
  const agent = restateAgent({
    ingressUrl: options.ingressUrl,
    adminUrl: options.adminUrl,
    history,
    chunks,
  });
  const handler = agentRequestHandler(agent, {
    basePath: '/agent',
    corsOrigins: options.corsOrigins ?? [],
    // Your app's sign-in goes here: refuse with a Response, or return `{ runContext }` (JSON: it
    // is journaled in Restate and reaches the worker's tools as `context.runContext`).
    authorize: (request) => {
      if (options.token === undefined) return {};
      return request.headers.get('authorization') === `Bearer ${options.token}`
        ? {}
        : new Response('Sign in first.', { status: 401 });
    },
  });
  const server = createHttpServer(createRequestListener(handler));
  const host = options.host ?? '127.0.0.1';
  await listen(server, options.port ?? 3010, host);
  return {
    url: `http://${host}:${boundPort(server)}/agent/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await Promise.all([history.close(), chunks.close()]);
    },
  };
}

/** Registers (again, `force`) the deployment at `uri` so Restate discovers its handlers. */
async function register(adminUrl, uri) {
  const response = await fetch(`${adminUrl}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri, force: true }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) {
    throw new Error(
      `Restate refused deployment ${uri}: ${response.status} ${await response.text()}`,
    );
  }
}

/** Resolves once `server` listens on `host:port`; rejects when it cannot (port taken …). */
function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
}

function boundPort(server) {
  return /** @type {import('node:net').AddressInfo} */ (server.address()).port;
}
