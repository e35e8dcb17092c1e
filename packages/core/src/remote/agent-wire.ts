import type { MessageInput } from '../agent/agent-options.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { ModelRetryPolicy } from '../agent/model-retry-policy.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';
import type { RunResult } from '../agent/run-result.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';

/**
 * The HTTP API between `remoteAgent` (browser) and `agentRequestHandler`
 * (`@switchboard/core/server`), relative to the agent's URL (docs/scale.md, "Running the agent on
 * the server"). One module for both ends, so they cannot drift apart.
 *
 * | method | path | body | answer |
 * |---|---|---|---|
 * | POST | `runs` | {@link RemoteExecuteBody} | 202 {@link StartedRun} |
 * | GET | `runs/:handleId/chunks?after=N` | — | SSE: `chunk` events (`id` = `sequence`), then one `result` |
 * | POST | `runs/:handleId/stop` | — | 204 |
 * | GET | `threads` | — | 200 `ThreadSummary[]` |
 * | GET | `threads/:threadId/runs` | — | 200 `RunRecord[]` (`loadThread`) |
 * | PATCH | `threads/:threadId` | `{ title }` | 204 |
 * | DELETE | `threads/:threadId` | — | 204 |
 * | GET | `threads/:threadId/branch` | — | 200 `BranchSelection` or `null` |
 * | PUT | `threads/:threadId/branch` | `BranchSelection` | 204 |
 *
 * A failure is a non-2xx status with the body {@link WireErrorBody}.
 */
export const AGENT_WIRE_PATHS = {
  runs: 'runs',
  chunks: (handleId: string) => `runs/${encodeURIComponent(handleId)}/chunks`,
  stop: (handleId: string) => `runs/${encodeURIComponent(handleId)}/stop`,
  threads: 'threads',
  thread: (threadId: string) => `threads/${encodeURIComponent(threadId)}`,
  threadRuns: (threadId: string) => `threads/${encodeURIComponent(threadId)}/runs`,
  threadBranch: (threadId: string) => `threads/${encodeURIComponent(threadId)}/branch`,
} as const;

/** The SSE event names of a run's chunk stream. */
export const SSE_EVENTS = { chunk: 'chunk', result: 'result' } as const;

/**
 * The body of `POST runs`: the run's handle id, made by the client so that a start whose answer
 * was lost can be sent again (the server answers the same id once, never starts it twice), and
 * the `ExecuteInput` fields that travel: the thread (made by the client for a new thread too),
 * user messages or resolutions, and a retry policy. `signal`, `fallbackModels` and `runContext`
 * stay on their side: the server's agent has its own models, and the run context is the
 * server's (`agentRequestHandler`'s `authorize`).
 */
export interface RemoteExecuteBody {
  handleId: string;
  input: {
    threadId: string;
    messages?: MessageInput | MessageInput[];
    /** The branch point of a new message (`ExecuteInput.parentRunId`). */
    parentRunId?: string | null;
    resolutions?: Resolution[];
    modelRetry?: ModelRetryPolicy;
  };
}

/** The answer to `POST runs`: the id to stream and stop the run by, and its thread. */
export interface StartedRun {
  handleId: string;
  threadId: string;
}

/** A `SwitchboardError` as JSON: its code, message and details (never its `cause`). */
export interface WireError {
  code: SwitchboardErrorCode;
  message: string;
  details?: unknown;
}

/** The body of every failed request. */
export interface WireErrorBody {
  error: WireError;
}

/** A chunk as JSON: `run.failed` carries a {@link WireError}. */
export type WireChunk =
  | Exclude<Chunk, { type: 'run.failed' }>
  | (Omit<Extract<Chunk, { type: 'run.failed' }>, 'error'> & { error: WireError });

/** A `RunResult` as JSON: `error` is a {@link WireError}. */
export type WireRunResult = Omit<RunResult, 'error'> & { error?: WireError };

export function errorToWire(error: SwitchboardError): WireError {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details };
}

export function errorFromWire(error: WireError): SwitchboardError {
  // The details are the server's, of the same code: the wire keeps their shape.
  const details = error.details as never;
  return new SwitchboardError(error.code, error.message, details === undefined ? {} : { details });
}

export function chunkToWire(chunk: Chunk): WireChunk {
  return chunk.type === 'run.failed' ? { ...chunk, error: errorToWire(chunk.error) } : chunk;
}

export function chunkFromWire(chunk: WireChunk): Chunk {
  return chunk.type === 'run.failed' ? { ...chunk, error: errorFromWire(chunk.error) } : chunk;
}

export function resultToWire(result: RunResult): WireRunResult {
  const { error, ...rest } = result;
  return error === undefined ? rest : { ...rest, error: errorToWire(error) };
}

export function resultFromWire(result: WireRunResult): RunResult {
  const { error, ...rest } = result;
  return error === undefined ? rest : { ...rest, error: errorFromWire(error) };
}
