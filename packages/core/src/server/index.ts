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

// Building blocks for `AgentEndpoint`s whose runs happen elsewhere (e.g. `@switchboard/restate`):
// the same message normalisation and chunk buffer as `Agent` and `remoteAgent`.
export { toMessageItems } from '../agent/message-items.ts';
export { ReplayChannel } from '../internal/replay-channel.ts';
