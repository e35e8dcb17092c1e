import * as restate from '@restatedev/restate-sdk';
import {
  Agent,
  type AgentOptions,
  type Chunk,
  type HistoryStore,
  type MessageItem,
  type Resolution,
  type RunResult,
} from '@switchboard/core';
import { journaledHistory, type HistoryRetryOptions } from './journaled-history.ts';
import { claimPause } from './pause-claim.ts';
import type { RedisChunkLog } from './redis-chunk-log.ts';
import { restateSteps } from './restate-steps.ts';

/**
 * The lease of a Restate-run row (ms). Restate, not the lease, tells whether the run is alive
 * (it re-runs the handler after a crash), so nobody should recover the row meanwhile; the
 * journal renews no lease under a durable runner (`StepRunner.durable`).
 */
export const DURABLE_LEASE_MS = 30 * 24 * 3_600_000;

/** Options of {@link agentObject}. */
export interface AgentObjectOptions {
  /** The virtual object's name in Restate. Default `switchboardAgent`. */
  name?: string;
  /** The agent (model, tools, MCP servers, instructions …) without its history. */
  agent: Omit<AgentOptions, 'history' | 'leaseMs'>;
  /** Where threads are kept, shared by every worker (e.g. `PostgresHistoryStore`). */
  history: HistoryStore;
  /** Where chunks go for live and late readers. */
  chunks: RedisChunkLog;
  /**
   * How long a transient failure of `history` (it wrote nothing: no pooled connection in time,
   * a lock wait) is retried as a Restate step retry before the run ends `history_error`.
   * Default: up to 2 minutes, backing off from 100 ms to 2 s.
   */
  historyRetry?: HistoryRetryOptions;
}

/**
 * Input of the `run` handler: a new run (`parentRunId`: its branch point, as
 * `ExecuteInput.parentRunId`), or the answers to a paused run no handler waits for.
 * `runContext` reaches every tool as `context.runContext`, as with `Agent.execute`; it is
 * journaled with the invocation, so it must be JSON (and is stored in Restate: keep secrets
 * out of it).
 */
export type AgentRunInput = { runContext?: unknown } & (
  | { runId: string; messages: MessageItem[]; parentRunId?: string | null; resolutions?: never }
  | { resolutions: Resolution[]; runId?: never; messages?: never; parentRunId?: never }
);

/** Input of the `resolve` handler: the answers, and the answering request's `runContext`. */
export interface AgentResolveInput {
  resolutions: Resolution[];
  runContext?: unknown;
}

/** What the `run` handler returns: how the run (with every resume it waited for) ended. */
export interface AgentRunOutput {
  runId: string;
  status: RunResult['status'];
  error?: { code: string; message: string };
}

/** The human wait a `run` handler is suspended on (object state `wait`). */
export interface AgentWait {
  runId: string;
  awakeableId: string;
  /** The waiting `run` invocation (what `stop()` cancels). */
  invocationId: string;
}

/** What wakes a waiting `run` handler. */
type Wake =
  | { type: 'resolve'; resolutions: Resolution[]; runContext?: unknown }
  | { type: 'abandon' }
  | { type: 'cancel' };

const WAIT = 'wait';

/**
 * An agent served as a Restate virtual object keyed by thread id (docs/scale.md, "Durable runs
 * on Restate"). Its exclusive `run` handler runs one user message's run with every step
 * journaled (`restateSteps`, `journaledHistory`); when the run pauses for a human it stores an
 * awakeable's id (state `wait`) and suspends — no worker holds it — until the shared `resolve`
 * handler completes the awakeable with the `Resolution`s (after any number of worker restarts),
 * then resumes the run in the same invocation. Cancelling the invocation (`stop()`) aborts the
 * run: every open call gets its `cancelled` output, as `Agent` does.
 *
 * A thread's runs are serialised by the object's key: a new message for a thread whose run waits
 * for a human first calls `abandon` (the waiting handler ends, the pause stays stored), then
 * `run`, which closes the pause's calls as unanswered, as `Agent.execute` does.
 */
export function agentObject(options: AgentObjectOptions) {
  return restate.object({
    name: options.name ?? 'switchboardAgent',
    handlers: {
      run: restate.handlers.object.exclusive(
        async (ctx: restate.ObjectContext, input: AgentRunInput): Promise<AgentRunOutput> => {
          const threadId = ctx.key;
          const controller = new AbortController();
          const agent = new Agent({
            ...options.agent,
            history: journaledHistory(options.history, ctx, options.historyRetry),
            leaseMs: DURABLE_LEASE_MS,
          });
          // A cancelled invocation (`stop()`) rejects the step being awaited: the run stops, and
          // its last writes (each call's output) are steps again, which Restate still runs.
          const steps = restateSteps(ctx, () => controller.abort());
          const execute = async (
            part:
              | { messages: MessageItem[]; runId: string; parentRunId?: string | null }
              | { resolutions: Resolution[] },
            runContext: unknown,
          ): Promise<RunResult> => {
            const handle = agent.execute({
              ...part,
              ...(runContext === undefined ? {} : { runContext }),
              threadId,
              steps,
              signal: controller.signal,
            });
            const pumped = pump(options.chunks, threadId, handle.chunks);
            const result = await handle.result();
            await pumped;
            return result;
          };
          let result = await execute(
            input.resolutions === undefined
              ? {
                  messages: input.messages,
                  runId: input.runId,
                  ...(input.parentRunId === undefined ? {} : { parentRunId: input.parentRunId }),
                }
              : { resolutions: input.resolutions },
            input.runContext,
          );
          while (result.status === 'paused' && !controller.signal.aborted) {
            const awakeable = ctx.awakeable<Wake>();
            ctx.set<AgentWait>(WAIT, {
              runId: result.runId,
              awakeableId: awakeable.id,
              invocationId: ctx.request().id,
            });
            let wake: Wake;
            try {
              wake = await awakeable.promise;
            } catch (error) {
              if (!(error instanceof restate.CancelledError)) throw error;
              // Stopping a paused run leaves the pause stored and answerable (as `Agent` does).
              wake = { type: 'cancel' };
            }
            ctx.clear(WAIT);
            if (wake.type !== 'resolve') break;
            result = await execute({ resolutions: wake.resolutions }, wake.runContext);
          }
          return {
            runId: result.runId,
            status: result.status,
            ...(result.error === undefined
              ? {}
              : { error: { code: result.error.code, message: result.error.message } }),
          };
        },
      ),
      /**
       * Answers the paused run the `run` handler waits for. Returns `{ waiting: false }` when no
       * handler waits (the caller then starts `run` with the resolutions).
       */
      resolve: restate.handlers.object.shared(
        async (
          ctx: restate.ObjectSharedContext,
          input: AgentResolveInput,
        ): Promise<{ waiting: boolean; runId?: string; invocationId?: string }> => {
          const wait = await ctx.get<AgentWait>(WAIT);
          if (wait === null) return { waiting: false };
          ctx.resolveAwakeable<Wake>(wait.awakeableId, {
            type: 'resolve',
            resolutions: input.resolutions,
            ...(input.runContext === undefined ? {} : { runContext: input.runContext }),
          });
          return { waiting: true, runId: wait.runId, invocationId: wait.invocationId };
        },
      ),
      /** The wait the `run` handler holds now, if any (read only): a pause is answerable once here. */
      waiting: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<AgentWait | null> =>
          await ctx.get<AgentWait>(WAIT),
      ),
      /** Decides who answers a pause (called on the key `pauseClaimKey(threadId)`). */
      claim: claimPause,
      /** Ends a `run` handler's wait without answering (a new message comes). */
      abandon: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<{ waiting: boolean }> => {
          const wait = await ctx.get<AgentWait>(WAIT);
          if (wait === null) return { waiting: false };
          ctx.resolveAwakeable<Wake>(wait.awakeableId, { type: 'abandon' });
          return { waiting: true };
        },
      ),
    },
  });
}

/** The type of the object {@link agentObject} makes, for typed clients. */
export type AgentObject = ReturnType<typeof agentObject>;

/** Writes the run's live chunks to the chunk log, in order. */
async function pump(
  log: RedisChunkLog,
  threadId: string,
  chunks: AsyncIterable<Chunk>,
): Promise<void> {
  for await (const chunk of chunks) {
    try {
      await log.append(threadId, chunk);
    } catch {
      // Chunks are live-only: a lost one costs a reader a delta, never the run (its rows are
      // the record).
    }
  }
}
