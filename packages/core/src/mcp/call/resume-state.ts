import type { InputRequest, Resolution, ToolInterruptResult } from '../../vocabulary/interrupts.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';

/*
 * How MCP's ways of asking the human map onto the vocabulary (`vocabulary/interrupts.ts`):
 *
 * - A server asks with `elicitation/create` (pushed, 2025 era), an `input_required` result
 *   (MRTR, 2026-07-28), error -32042 (URL elicitation required) or a 401/403 (OAuth). Each is
 *   turned into the one vocabulary {@link InputRequest} (`parseElicitation`, or built here for
 *   `url` and `authorization`), which the run shows as an `Interrupt` of the held call.
 * - What the call needs to go on after the pause is an {@link McpResumeState}: plain JSON the
 *   run stores as the interrupt's `resumeState` and hands back in `ToolResume`, so any client
 *   (after a reload, in another tab) can resume. It never leaves the `mcp` layer's meaning.
 * - The human's {@link Resolution} comes back with it. For elicitation it is sent to the server
 *   as an {@link ElicitResultLike} (`toElicitResult`: approve → accept, reject → decline,
 *   cancel → cancel); for `url-required` and `authorization` it only decides whether the call
 *   is made again.
 */

/** The MCP `ElicitResult` (spec 2025-11-25, elicitation): the wire form of a {@link Resolution}. */
export interface ElicitResultLike {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A pushed `elicitation/create` waiting for the human, as seen by the server's handler. */
export interface ActiveCall {
  /** Asks the human (pausing the call's clocks) and returns the MCP `ElicitResult`. */
  ask(request: InputRequest): Promise<ElicitResultLike>;
}

/** MRTR (2026-07-28): the server's `requestState` and requests; answers gathered so far. */
export interface MrtrResumeState {
  kind: 'mrtr';
  requestState?: string;
  inputRequests: Record<string, unknown>;
  answers: Record<string, ElicitResultLike>;
  /** The key of `inputRequests` the human is asked now. */
  key: string;
}

/** A pushed request (2025 era): what was asked, to recognise it when the server asks again. */
export interface PushedResumeState {
  kind: 'pushed';
  request: InputRequest;
}

/** Error -32042: URL elicitations required before the call can succeed. */
export interface UrlRequiredResumeState {
  kind: 'url-required';
  url: string;
  /** Every URL shown so far for this call: one asked again stops the call (no loop). */
  shownUrls: string[];
}

/** The server wants OAuth authorization (401, or 403 step-up needing consent). */
export interface AuthorizationResumeState {
  kind: 'authorization';
  /** Sign-ins asked for so far for this call. */
  attempts: number;
}

/**
 * A call that holds an MCP task (`mcp/call/task.ts`): the task's id and era, so polling resumes
 * after a reload, plus what the task asked — a 2026-07-28 `input_required` (`inputRequests`,
 * the answers so far, the key asked now) or a 2025 pushed request on `tasks/result` (`pushed`).
 */
export interface TaskResumeState {
  kind: 'task';
  taskId: string;
  era: 'legacy' | 'modern';
  inputRequests?: Record<string, unknown>;
  answers?: Record<string, ElicitResultLike>;
  key?: string;
  pushed?: InputRequest;
}

/** The plain-JSON resume states an MCP call stores in the run state, one per way of asking. */
export type McpResumeState =
  | MrtrResumeState
  | PushedResumeState
  | UrlRequiredResumeState
  | AuthorizationResumeState
  | TaskResumeState;

/** MRTR: what the repeated `tools/call` carries (the answers and the server's state). */
export interface MrtrRetry {
  inputResponses: Record<string, ElicitResultLike>;
  requestState?: string;
}

/** The user's answer to a pushed request, kept across a reload until the server asks again. */
export interface StoredAnswer {
  request: InputRequest;
  resolution: Resolution;
}

/** How a call goes on with a task it already has (a resumed call; see `task.ts`). */
export interface TaskPlan {
  taskId: string;
  era: 'legacy' | 'modern';
  /** 2026-07-28: answers to send with `tasks/update` first. */
  respond?: Record<string, ElicitResultLike>;
  /** The user gave the task up (after a reload): cancel it instead of following it. */
  cancel?: boolean;
}

/** How a call is made, after its resume state (if any) was applied. */
export interface CallPlan {
  /** MRTR: the answers to send with the repeated call. */
  retry?: MrtrRetry;
  /** Pushed: the answer to give when the server asks the same again. */
  storedAnswer?: StoredAnswer;
  /** URL elicitations already shown for this call. */
  shownUrls: string[];
  /** Sign-ins already asked for this call. */
  authorizationAttempts: number;
  /** The call holds a task already: follow it instead of calling the tool (`task.ts`). */
  task?: TaskPlan;
}

/** The plan of a call made for the first time. */
export const FRESH_CALL: CallPlan = { shownUrls: [], authorizationAttempts: 0 };

/** What applying a resume state gives: the call settled without a request, or its plan. */
export type ResumeOutcome =
  { settled: ToolOutput | ToolInterruptResult; plan?: never } | { plan: CallPlan; settled?: never };
