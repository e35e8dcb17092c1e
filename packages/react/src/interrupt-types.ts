import type { Resolution } from '@switchboard/core';

/** Core's `Interrupt` (approval, form, URL or sign-in), re-exported: the same type, not a copy. */
export type { Interrupt } from '@switchboard/core';

/** The human's answer: `approve` (accept), `reject` (decline) or `cancel` (dismiss). */
export type ResolutionAction = Resolution['action'];

/**
 * What the interrupt components call with the human's answer; typically
 * `(action, content) => agent.resolve(interrupt.callId, action, content)`. A returned promise
 * keeps the component's buttons disabled until it settles.
 */
export type ResolveHandler = (
  action: ResolutionAction,
  content?: Record<string, unknown>,
) => unknown;
