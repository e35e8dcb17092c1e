/**
 * `@switchboard/restate`: durable Switchboard agent runs on Restate (docs/scale.md, "Durable
 * runs on Restate"). Node only; `@restatedev/restate-sdk` is a peer dependency.
 */
export { restateSteps } from './restate-steps.ts';
export { journaledHistory, type HistoryRetryOptions } from './journaled-history.ts';
export {
  agentObject,
  DURABLE_LEASE_MS,
  type AgentObject,
  type AgentObjectOptions,
  type AgentResolveInput,
  type AgentRunInput,
  type AgentRunOutput,
  type AgentWait,
} from './agent-object.ts';
export { pauseClaimKey, type PauseClaimInput } from './pause-claim.ts';
export { RedisChunkLog, type RedisChunkLogOptions } from './redis-chunk-log.ts';
export { restateAgent, type RestateAgentOptions } from './restate-agent-client.ts';
