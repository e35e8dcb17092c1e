import {
  SwitchboardError,
  isSwitchboardError,
  type AgentEndpoint,
  type Chunk,
  type ExecuteInput,
  type HistoryStore,
  type RunHandle,
  type RunRecord,
  type RunResult,
} from '@switchboard/core';
import { ReplayChannel, toMessageItems } from '@switchboard/core/server';
import type { AgentResolveInput, AgentRunInput, AgentWait } from './agent-object.ts';
import { pauseClaimKey, pauseOf, type PauseClaimInput } from './pause-claim.ts';
import { isTerminal, type RedisChunkLog } from './redis-chunk-log.ts';

/** Options of {@link restateAgent}. */
export interface RestateAgentOptions {
  /** Restate's ingress, e.g. `http://127.0.0.1:8080`. */
  ingressUrl: string;
  /** Restate's admin API (cancels an invocation on `stop()`), e.g. `http://127.0.0.1:9070`. */
  adminUrl: string;
  /** The object's name given to `agentObject`. Default `switchboardAgent`. */
  objectName?: string;
  /** The history store the workers write (read here: `loadThread`, thread lists). */
  history: HistoryStore;
  /** The chunk log the workers write. */
  chunks: RedisChunkLog;
  /** Time limit of each ingress or admin request (ms). Default 30 000. */
  requestTimeoutMs?: number;
}

/**
 * An agent whose runs happen on Restate workers (`agentObject`), as an `AgentEndpoint`:
 * `execute` sends the run to Restate and follows its chunks in the chunk log; `loadThread` and
 * `history` read the shared history store; `stop()` cancels the Restate invocation. Serve it to
 * browsers with `agentRequestHandler` (`@switchboard/core/server`).
 */
export function restateAgent(options: RestateAgentOptions): AgentEndpoint {
  const object = options.objectName ?? 'switchboardAgent';
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const ingress = async <T>(
    threadId: string,
    handler: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> => {
    const url = `${options.ingressUrl}/${object}/${encodeURIComponent(threadId)}/${handler}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body ?? null),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new SwitchboardError(
        'connection_refused',
        `Restate ingress at ${url}: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
    if (!response.ok) {
      throw new SwitchboardError(
        'http_status',
        `Restate ingress answered ${response.status} to ${handler}: ${await response.text()}`,
        { details: { status: response.status } as never },
      );
    }
    return (await response.json()) as T;
  };
  const cancel = async (invocationId: string): Promise<void> => {
    await fetch(`${options.adminUrl}/invocations/${encodeURIComponent(invocationId)}/cancel`, {
      method: 'PATCH',
      signal: AbortSignal.timeout(timeoutMs),
    });
  };

  return {
    history: options.history,
    mcpServers: undefined,
    loadThread(threadId: string, loadOptions: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
      return options.history.loadRuns(threadId, loadOptions);
    },
    execute(input: ExecuteInput): RunHandle {
      const threadId = input.threadId ?? crypto.randomUUID();
      const buffer = new ReplayChannel<Chunk>();
      const reading = new AbortController();
      let runId = '';
      let invocationId: string | undefined;
      let stopped = false;
      const claimant = crypto.randomUUID();
      let body: AgentRunInput;
      if (input.resolutions === undefined) {
        const inputs = Array.isArray(input.messages) ? input.messages : [input.messages];
        if (inputs.some((message) => typeof message !== 'string' && !('type' in message))) {
          throw new SwitchboardError(
            'invalid_input',
            'A Restate-run agent does not carry attached files yet: send text and resources only.',
            { details: { reason: 'restate_agent_option' } },
          );
        }
        const messages = toMessageItems(inputs);
        runId = input.runId ?? crypto.randomUUID();
        body = {
          runId,
          messages,
          ...(input.parentRunId === undefined ? {} : { parentRunId: input.parentRunId }),
          ...(input.runContext === undefined ? {} : { runContext: input.runContext }),
        };
      } else {
        if (input.resolutions.length === 0) {
          throw new SwitchboardError('invalid_input', 'execute() needs at least one resolution.');
        }
        body = {
          resolutions: input.resolutions,
          ...(input.runContext === undefined ? {} : { runContext: input.runContext }),
        };
      }

      const untilWaiting = async (pausedRunId: string): Promise<void> => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const wait = await ingress<AgentWait | null>(threadId, 'waiting', null);
          if (wait?.runId === pausedRunId || Date.now() > deadline) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };

      const start = async (): Promise<number> => {
        if (body.resolutions === undefined) {
          // A handler waiting for a human holds the thread's key: end its wait first.
          await ingress(threadId, 'abandon', null);
          const sent = await ingress<{ invocationId: string }>(threadId, 'run/send', body, {
            'idempotency-key': runId,
          });
          invocationId = sent.invocationId;
          return 0;
        }
        const paused = (await options.history.loadRuns(threadId)).at(-1);
        if (paused?.status !== 'paused') {
          throw new SwitchboardError('not_paused', `Thread ${threadId} has no paused run.`);
        }
        runId = paused.runId;
        // Of two answers to one pause (two tabs), exactly one reaches the run; the other ends
        // `run_claimed` having sent nothing.
        const claim = await ingress<{ claimant: string }>(pauseClaimKey(threadId), 'claim', {
          pause: pauseOf(paused),
          claimant,
          holdMs: 2 * timeoutMs,
        } satisfies PauseClaimInput);
        if (claim.claimant !== claimant) {
          throw new SwitchboardError('run_claimed', 'Another client answered this pause first.', {
            details: { runId, status: paused.status },
          });
        }
        const from = await options.chunks.length(threadId, runId);
        const answer = await ingress<{ waiting: boolean; invocationId?: string }>(
          threadId,
          'resolve',
          {
            resolutions: body.resolutions,
            ...(body.runContext === undefined ? {} : { runContext: body.runContext }),
          } satisfies AgentResolveInput,
        );
        if (answer.waiting) {
          invocationId = answer.invocationId;
        } else {
          const sent = await ingress<{ invocationId: string }>(threadId, 'run/send', body);
          invocationId = sent.invocationId;
        }
        return from;
      };

      const resultPromise = (async (): Promise<RunResult> => {
        let terminal: Chunk | undefined;
        try {
          const from = await start();
          if (stopped && invocationId !== undefined) await cancel(invocationId);
          for await (const chunk of options.chunks.read(threadId, runId, {
            from,
            signal: reading.signal,
          })) {
            // A pause is told once its wait is journaled, so that an answer (or a worker's
            // death) right after it finds the wait, never a replay that pauses again.
            if (chunk.type === 'run.paused') await untilWaiting(chunk.runId);
            buffer.push(chunk);
            if (isTerminal(chunk)) terminal = chunk;
          }
        } catch (error) {
          const failure = isSwitchboardError(error)
            ? error
            : new SwitchboardError('connection_refused', String(error), { cause: error });
          if (runId === '') runId = crypto.randomUUID();
          terminal = { type: 'run.failed', error: failure, runId, sequence: buffer.length };
          buffer.push(terminal);
        } finally {
          buffer.close();
        }
        return await resultOf(options.history, threadId, runId, terminal);
      })();

      return {
        get runId() {
          return runId;
        },
        threadId,
        chunks: buffer,
        result: () => resultPromise,
        stop: () => {
          stopped = true;
          if (invocationId !== undefined) void cancel(invocationId).catch(() => undefined);
        },
      };
    },
  };
}

/** The run's result from its terminal chunk and its stored row. */
async function resultOf(
  history: HistoryStore,
  threadId: string,
  runId: string,
  terminal: Chunk | undefined,
): Promise<RunResult> {
  const row = (await history.loadRuns(threadId).catch(() => [])).find((run) => run.runId === runId);
  const status =
    terminal?.type === 'run.completed'
      ? 'completed'
      : terminal?.type === 'run.paused'
        ? 'paused'
        : terminal?.type === 'run.cancelled'
          ? 'cancelled'
          : 'failed';
  const result: RunResult = {
    runId,
    threadId,
    status,
    output: row?.items ?? [],
    interrupts: terminal?.type === 'run.paused' ? terminal.interrupts : [],
    usage: row?.usage ?? { inputTokens: 0, outputTokens: 0 },
  };
  if (terminal?.type === 'run.failed') result.error = terminal.error;
  return result;
}
