/** Type tests of `useAgent`, checked by `npm run typecheck` (tsc), never run. */
import type {
  Agent,
  AgentChat,
  ChatStatus,
  Interrupt as CoreInterrupt,
  RunResult,
} from '@switchboard/core';
import type { McpAppThread } from './mcp-apps/mcp-app-thread.ts';
import { expectTypeOf } from 'vitest';
import type { Interrupt } from './interrupt-types.ts';
import { useAgent, type UseAgentResult } from './use-agent.ts';

declare const agent: Agent;

// The agent comes from the argument or from <SwitchboardProvider>; options either way. (Inside
// a hook, as React's rules want; never called.)
export function useAgentTypeTests(): void {
  expectTypeOf(useAgent(agent)).toEqualTypeOf<UseAgentResult>();
  expectTypeOf(useAgent(agent, { threadId: 't' })).toEqualTypeOf<UseAgentResult>();
  expectTypeOf(useAgent({ threadId: 't' })).toEqualTypeOf<UseAgentResult>();
  expectTypeOf(useAgent()).toEqualTypeOf<UseAgentResult>();
  // @ts-expect-error options twice
  useAgent({ threadId: 't' }, { threadId: 'u' });
}

declare const result: UseAgentResult;
expectTypeOf(result.status).toEqualTypeOf<ChatStatus>();
// React's Interrupt is core's, not a look-alike.
expectTypeOf<Interrupt>().toEqualTypeOf<CoreInterrupt>();
expectTypeOf(result.interrupts).toEqualTypeOf<readonly CoreInterrupt[]>();
expectTypeOf(result.send).returns.toEqualTypeOf<Promise<RunResult>>();
expectTypeOf(result.resolve).returns.toEqualTypeOf<Promise<RunResult | undefined>>();
result.resolve('call', 'approve', { name: 'Ada' });
// @ts-expect-error MCP's wire word `accept` is not an action: `approve` is sent as accept
result.resolve('call', 'accept');

// `useAgent()`'s result is a thread an MCP Apps view can live in (`<McpAppView thread>`), as is
// an `AgentChat`.
expectTypeOf(result).toExtend<McpAppThread>();
expectTypeOf<AgentChat>().toExtend<McpAppThread>();
