import type { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Item, ToolOutput, Usage } from '../vocabulary/items.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';
import type { ToolTaskStatus } from '../tools/tool-types.ts';
import type { AppViewRef, ToolCallUi } from '../vocabulary/tool-ui.ts';

/** Fields every chunk carries. */
export interface ChunkBase {
  runId: string;
  /** 0-based, increases by one per chunk within a run. */
  sequence: number;
}

/** The run began; `threadId` is the thread it appends to. */
export interface RunStartedChunk extends ChunkBase {
  type: 'run.started';
  threadId: string;
}

/** A piece of assistant text. */
export interface TextDeltaChunk extends ChunkBase {
  type: 'text.delta';
  delta: string;
}

/** The assistant finished a text message in this turn. */
export interface TextDoneChunk extends ChunkBase {
  type: 'text.done';
  text: string;
}

/** A piece of provider reasoning text. */
export interface ReasoningDeltaChunk extends ChunkBase {
  type: 'reasoning.delta';
  delta: string;
}

/** The model called a tool; `arguments` is the parsed JSON (or the raw string if unparsable). */
export interface ToolCallChunk extends ChunkBase {
  type: 'tool.call';
  callId: string;
  toolName: string;
  server?: string;
  /** The MCP Apps view that renders this call (the tool's `_meta.ui.resourceUri`). */
  ui?: ToolCallUi;
  arguments: unknown;
  /** Set when an MCP Apps view asked for this call, not the model (`Agent.callToolFromApp`). */
  requestedBy?: AppViewRef;
}

/** Progress from a running tool. Never stored in history. */
export interface ToolProgressChunk extends ChunkBase {
  type: 'tool.progress';
  callId: string;
  toolName: string;
  progress: number;
  total?: number;
  message?: string;
  /** The MCP task the call follows, with its last status (see `ToolProgress.task`). */
  task?: ToolTaskStatus;
}

/** A tool call settled (success or error output). */
export interface ToolResultChunk extends ChunkBase {
  type: 'tool.result';
  callId: string;
  toolName: string;
  output: ToolOutput;
}

/**
 * A chunk of a nested run — a sub-agent used as this call's tool (`Agent.asTool`) — scoped to
 * the call, so a UI shows it inside the call's card. `chunk` is the nested run's own chunk,
 * numbered in that run (its `runId`, `sequence`); a sub-agent's sub-agent arrives as a
 * `tool.nested` inside `chunk`. Not stored here: the nested run keeps its own rows (see
 * `RunRecord.parentCall`).
 */
export interface ToolNestedChunk extends ChunkBase {
  type: 'tool.nested';
  /** The call of this run whose tool is the nested run's agent. */
  callId: string;
  toolName: string;
  chunk: Chunk;
}

/**
 * An MCP server needs the user to sign in before it can list its tools (OAuth, status
 * `needs-auth`): this run goes on without its tools. Offer `McpServer.authorize()` ("Connect").
 * Not stored in history.
 */
export interface ServerNeedsAuthChunk extends ChunkBase {
  type: 'server.needs_auth';
  /** The MCP server's name. */
  server: string;
  /** The `needs_auth` error's message (never a token). */
  message: string;
}

/**
 * A model call failed before the model produced anything and will be made again after
 * `delayMs` (see `ModelRetryPolicy`), e.g. "Rate limited, retrying in 3 s". The failed attempt
 * is kept in the run's row (`RunRecord.modelFailures`); the chunk itself is not stored.
 */
export interface ModelRetryChunk extends ChunkBase {
  type: 'model.retry';
  /** The model that failed, as `provider/modelId`. */
  model: string;
  /** The attempt made after the wait: 2 for the first retry. */
  attempt: number;
  /** The attempts the policy allows on this model (`ModelRetryPolicy.maxAttempts`). */
  maxAttempts: number;
  /** The wait before that attempt, in ms: the provider's `Retry-After` when it sent one. */
  delayMs: number;
  /** The failure's message. */
  reason: string;
  /** The failure's code: `model_error` or `timeout`. */
  code: SwitchboardErrorCode;
  /** The failure's HTTP status, when the provider answered with one. */
  status?: number;
}

/**
 * The model failed (after its retries, or at once when it said it is overloaded) and the run
 * goes on with the next of `AgentOptions.fallbackModels`, for this call and the rest of the run.
 * Kept in the run's row like a retry; the chunk itself is not stored.
 */
export interface ModelFallbackChunk extends ChunkBase {
  type: 'model.fallback';
  /** The model that failed, as `provider/modelId`. */
  from: string;
  /** The model tried next, as `provider/modelId`. */
  to: string;
  /** The failure's message. */
  reason: string;
  /** The failure's code: `model_error` or `timeout`. */
  code: SwitchboardErrorCode;
  /** The failure's HTTP status, when the provider answered with one. */
  status?: number;
}

/**
 * The model call has had no response headers for `waitedMs` (the model's `waitingNoticeMs`):
 * most likely it is queued in the browser behind other requests to `host` — a browser opens at
 * most 6 HTTP/1.1 connections per host and other tabs' long-lived streams can hold them all —
 * or the provider is slow to start. Not a failure: the call keeps waiting up to its time
 * limits. A UI shows "Waiting for a free connection to `host`" instead of "Thinking…" until the
 * model's first output. Not stored.
 */
export interface ModelWaitingChunk extends ChunkBase {
  type: 'model.waiting';
  /** The model called, as `provider/modelId`. */
  model: string;
  /** The host the request is for (`api.openai.com`, `127.0.0.1:4000`). */
  host: string;
  /** How long the request had gone without response headers, in ms. */
  waitedMs: number;
}

/** The run ended normally. */
export interface RunCompletedChunk extends ChunkBase {
  type: 'run.completed';
  usage: Usage;
  output: Item[];
}

/**
 * The run stopped for a human: each interrupt is a held call (approval, form or URL). Resume with
 * `agent.execute({ threadId, resolutions })`.
 */
export interface RunPausedChunk extends ChunkBase {
  type: 'run.paused';
  interrupts: Interrupt[];
}

/** The run ended with an error; history was left consistent. */
export interface RunFailedChunk extends ChunkBase {
  type: 'run.failed';
  error: SwitchboardError;
}

/** The run was stopped; every pending call got a synthetic output. */
export interface RunCancelledChunk extends ChunkBase {
  type: 'run.cancelled';
}

/** Everything a run streams, discriminated on `type`. */
export type Chunk =
  | RunStartedChunk
  | TextDeltaChunk
  | TextDoneChunk
  | ReasoningDeltaChunk
  | ToolCallChunk
  | ToolProgressChunk
  | ToolResultChunk
  | ToolNestedChunk
  | ServerNeedsAuthChunk
  | ModelRetryChunk
  | ModelFallbackChunk
  | ModelWaitingChunk
  | RunCompletedChunk
  | RunPausedChunk
  | RunFailedChunk
  | RunCancelledChunk;

/** A chunk as produced by the loop, before the run handle stamps `runId` and `sequence`. */
export type ChunkPayload = Chunk extends infer C
  ? C extends Chunk
    ? Omit<C, 'runId' | 'sequence'>
    : never
  : never;
