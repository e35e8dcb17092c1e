/**
 * `@switchboard/core/server`: serves an agent over HTTP for `remoteAgent` in the browser
 * (docs/scale.md, "Running the agent on the server"). Fetch-standard `Request` → `Response`,
 * no Node built-ins: it runs in Node, Deno, Bun and workers.
 */
export {
  agentRequestHandler,
  type AgentAccess,
  type AgentAuthorization,
  type AgentRequestHandler,
  type AgentRequestHandlerOptions,
} from './agent-request-handler.ts';
