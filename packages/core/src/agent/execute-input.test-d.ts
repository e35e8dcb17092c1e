/**
 * Type tests, checked by `npm run typecheck` (tsc): `expectTypeOf` fails to compile when a type
 * drifts, and each `@ts-expect-error` fails when the line it guards starts to compile.
 */
import { expectTypeOf } from 'vitest';
import type { Agent } from './agent.ts';
import type { ExecuteInput } from './agent-options.ts';
import type { RunHandle } from './run-result.ts';

declare const agent: Agent;

// New messages: a string, a message item, or a list of either; the thread is optional.
agent.execute({ messages: 'hello' });
agent.execute({ threadId: 't', messages: [{ type: 'message', role: 'user', content: 'hi' }] });
// Resolutions continue a paused run, so they need its thread.
agent.execute({ threadId: 't', resolutions: [{ callId: 'c', action: 'approve' }] });

// @ts-expect-error resolutions without the thread they answer
agent.execute({ resolutions: [{ callId: 'c', action: 'approve' }] });
// @ts-expect-error messages and resolutions in one call: one or the other
agent.execute({ threadId: 't', messages: 'hi', resolutions: [] });
// @ts-expect-error neither messages nor resolutions
agent.execute({ threadId: 't' });
// @ts-expect-error an action outside approve | reject | cancel
agent.execute({ threadId: 't', resolutions: [{ callId: 'c', action: 'accept' }] });

expectTypeOf(agent.execute).parameter(0).toEqualTypeOf<ExecuteInput>();
expectTypeOf(agent.execute).returns.toEqualTypeOf<RunHandle>();
