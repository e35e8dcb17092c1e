import type { AgentChat, ChatSnapshot } from '@switchboard/core';

/**
 * A call held for the human (core's `Interrupt`: approval, form or URL). Derived from
 * `ChatSnapshot` because `@switchboard/core` does not export the type from its root entry yet.
 */
export type Interrupt = ChatSnapshot['interrupts'][number];

/** The human's answer: `approve` (accept), `reject` (decline) or `cancel` (dismiss). */
export type ResolutionAction = Parameters<AgentChat['resolve']>[1];

/**
 * What the interrupt components call with the human's answer; typically
 * `(action, content) => agent.resolve(interrupt.callId, action, content)`. A returned promise
 * keeps the component's buttons disabled until it settles.
 */
export type ResolveHandler = (
  action: ResolutionAction,
  content?: Record<string, unknown>,
) => unknown;
