// One Switchboard agent served over HTTP for browsers: `remoteAgent({ url })` in the page,
// `agentRequestHandler` here (docs/scale.md, "Running the agent on the server"). The model
// and the MCP credentials stay on this server; threads are kept as JSONL files.
import { createServer } from 'node:http';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { Agent, destructiveToolsNeedApproval, mcpServer } from '@switchboard/core';
import { JsonlHistoryStore } from '@switchboard/core/node';
import { openaiChatModel } from '@switchboard/core/openai';
import { agentRequestHandler } from '@switchboard/core/server';

/**
 * Starts the agent server on `host:port` and resolves once it listens.
 *
 * @param {object} options
 * @param {number} [options.port] Default 3010; 0 picks a free port.
 * @param {string} [options.host] Default 127.0.0.1.
 * @param {string} options.modelBaseUrl An OpenAI-compatible Chat Completions base URL.
 * @param {string} [options.apiKey] The model's key (stays on this server).
 * @param {string} [options.model] The model's name.
 * @param {string} options.mcpUrl An MCP server (Streamable HTTP) whose tools the agent uses.
 * @param {string} options.directory Where the threads are kept (JSONL files).
 * @param {string[]} [options.corsOrigins] Pages on other origins allowed to call the API.
 * @param {string} [options.token] When set, every request needs `Authorization: Bearer <token>`.
 * @returns {Promise<{ url: string; close(): Promise<void> }>} `url` is the agent's API base.
 */
export async function startAgentServer(options) {
  const tools = mcpServer({ url: options.mcpUrl, name: 'demo', toolPrefix: 'demo_' });
  const agent = new Agent({
    name: 'agent-server',
    instructions: 'Answer briefly. Use the tools when they help.',
    model: openaiChatModel({
      baseURL: options.modelBaseUrl,
      apiKey: options.apiKey ?? 'scripted',
      model: options.model ?? 'scripted',
    }),
    mcpServers: [tools],
    history: new JsonlHistoryStore({ directory: options.directory }),
    // Destructive and unannotated tools wait for the person in the browser.
    approvalPolicy: destructiveToolsNeedApproval,
  });
  const handler = agentRequestHandler(agent, {
    basePath: '/agent',
    corsOrigins: options.corsOrigins ?? [],
    // Your app's sign-in goes here: refuse with a Response, or pass the user to the tools.
    authorize: (request) => {
      if (options.token === undefined) return { runContext: { user: 'local' } };
      return request.headers.get('authorization') === `Bearer ${options.token}`
        ? { runContext: { user: 'token holder' } }
        : new Response('Sign in first.', { status: 401 });
    },
  });
  const server = createServer(createRequestListener(handler));
  const host = options.host ?? '127.0.0.1';
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3010, host, () => resolve(undefined));
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${port}/agent/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await tools.close();
    },
  };
}
