import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle, RunResult } from '../agent/run-result.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { ReplayChannel } from '../internal/replay-channel.ts';
import {
  AGENT_WIRE_PATHS,
  SSE_EVENTS,
  chunkFromWire,
  resultFromWire,
  type RemoteExecuteBody,
  type WireChunk,
  type WireRunResult,
} from './agent-wire.ts';
import { readServerSentEvents } from './read-server-sent-events.ts';
import { remoteRequest, type RemoteConnection } from './remote-request.ts';

/** How a remote run's stream survives drops (the resolved `RemoteAgentOptions`). */
export interface RemoteStreamPolicy {
  /** A stream silent for this long is dead and reopened (ms). */
  idleTimeoutMs: number;
  /** Failed attempts in a row (start, stream, stop) before the handle gives up. */
  maxReconnects: number;
  /** The first wait before a new attempt (ms); doubled per failure, at most 5 s. */
  reconnectDelayMs: number;
}

const MAX_RECONNECT_DELAY_MS = 5_000;

/**
 * The {@link RunHandle} of a run on a server: `POST runs` starts it (under an id made here, so
 * a start whose answer was lost is sent again without starting a second run), then its chunks
 * come over SSE into a replay channel. A dropped or silent stream is reopened from the last
 * `sequence` received (`?after=` and `Last-Event-ID`), so no chunk is lost or repeated; the
 * `result` event ends the handle. `stop()` is `POST runs/:id/stop`: the server's run ends
 * `cancelled` and its chunks (every call's output) still arrive.
 */
export class RemoteRunHandle implements RunHandle {
  readonly threadId: string;
  readonly chunks = new ReplayChannel<Chunk>();
  #runId = '';
  readonly #handleId = crypto.randomUUID();
  readonly #connection: RemoteConnection;
  readonly #policy: RemoteStreamPolicy;
  readonly #result: Promise<RunResult>;
  #settle!: (result: RunResult) => void;
  #started: Promise<boolean> | undefined;
  #stopped = false;
  #done = false;

  constructor(
    connection: RemoteConnection,
    policy: RemoteStreamPolicy,
    body: Omit<RemoteExecuteBody, 'handleId'>,
    signal: AbortSignal | undefined,
  ) {
    this.threadId = body.input.threadId;
    this.#connection = connection;
    this.#policy = policy;
    this.#result = new Promise((resolve) => (this.#settle = resolve));
    this.#started = this.#start({ ...body, handleId: this.#handleId });
    void this.#started.then((started) => (started ? this.#follow() : undefined));
    if (signal?.aborted === true) this.stop();
    else signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  get runId(): string {
    return this.#runId;
  }

  result(): Promise<RunResult> {
    return this.#result;
  }

  stop(): void {
    if (this.#stopped || this.#done) return;
    this.#stopped = true;
    void this.#started?.then((started) => (started ? this.#sendStop() : undefined));
  }

  /** `POST runs`, again after a failure that may be the connection's. False when refused. */
  async #start(body: RemoteExecuteBody): Promise<boolean> {
    for (let failures = 0; ;) {
      try {
        await remoteRequest(this.#connection, AGENT_WIRE_PATHS.runs, { method: 'POST', body });
        return true;
      } catch (error) {
        failures += 1;
        if (!isRetryable(error) || failures > this.#policy.maxReconnects) {
          this.#fail(error);
          return false;
        }
        await this.#backoff(failures);
      }
    }
  }

  /** Reads the chunk stream until the `result` event, reopening it after a drop. */
  async #follow(): Promise<void> {
    let after = -1;
    let failures = 0;
    const path = AGENT_WIRE_PATHS.chunks(this.#handleId);
    for (;;) {
      try {
        const response = await remoteRequest(
          this.#connection,
          after < 0 ? path : `${path}?after=${after}`,
          {
            method: 'GET',
            headers: after < 0 ? {} : { 'last-event-id': String(after) },
          },
        );
        if (response.body === null) throw lost('The agent server sent no event stream.');
        throwUnlessEventStream(response);
        for await (const event of readServerSentEvents(response.body, this.#policy.idleTimeoutMs)) {
          failures = 0;
          if (event.event === SSE_EVENTS.result) {
            this.#finish(resultFromWire(JSON.parse(event.data) as WireRunResult));
            return;
          }
          if (event.event !== SSE_EVENTS.chunk) continue;
          const chunk = chunkFromWire(JSON.parse(event.data) as WireChunk);
          if (chunk.sequence <= after) continue;
          after = chunk.sequence;
          this.#runId = chunk.runId;
          this.chunks.push(chunk);
        }
        // The server ends a stream after its time limit; anything else ending it is a drop too.
      } catch (error) {
        if (!isRetryable(error)) {
          this.#fail(error);
          return;
        }
        failures += 1;
        if (failures > this.#policy.maxReconnects) {
          this.#fail(error);
          return;
        }
        await this.#backoff(failures);
      }
    }
  }

  /** `POST runs/:id/stop`, again after a failure of the connection. */
  async #sendStop(): Promise<void> {
    for (let failures = 0; !this.#done;) {
      try {
        await remoteRequest(this.#connection, AGENT_WIRE_PATHS.stop(this.#handleId), {
          method: 'POST',
        });
        return;
      } catch (error) {
        failures += 1;
        if (!isRetryable(error) || failures > this.#policy.maxReconnects) return;
        await this.#backoff(failures);
      }
    }
  }

  #backoff(failures: number): Promise<void> {
    const delay = Math.min(
      this.#policy.reconnectDelayMs * 2 ** (failures - 1),
      MAX_RECONNECT_DELAY_MS,
    );
    return new Promise((resolve) => setTimeout(resolve, delay));
  }

  #finish(result: RunResult): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#runId === '') this.#runId = result.runId;
    this.chunks.close();
    this.#settle(result);
  }

  /**
   * Ends the handle with a failure of the connection or a refusal of the server. The server's
   * run may go on (a reload shows what it stored); this page no longer follows it.
   */
  #fail(error: unknown): void {
    const failure = isSwitchboardError(error)
      ? error
      : new SwitchboardError('invalid_response', 'The agent server sent an unreadable event.', {
          cause: error,
        });
    this.#finish({
      runId: this.#runId,
      threadId: this.threadId,
      status: 'failed',
      output: [],
      interrupts: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      error: failure,
    });
  }
}

/**
 * A 200 that is not an event stream (a fallback page of the app, a proxy's page) would end at
 * once and be asked for again and again without a failure: it is a wrong answer, said once.
 *
 * @throws SwitchboardError `invalid_response`.
 */
function throwUnlessEventStream(response: Response): void {
  const type = response.headers.get('content-type') ?? '';
  if (type.split(';')[0]?.trim().toLowerCase() === 'text/event-stream') return;
  void response.body?.cancel().catch(() => undefined);
  throw new SwitchboardError(
    'invalid_response',
    `The agent server answered a run's event stream with ${type === '' ? 'no content type' : type}, not text/event-stream.`,
  );
}

function lost(message: string): SwitchboardError {
  return new SwitchboardError('connection_lost', message);
}

/**
 * A failure that another attempt may not have: the server unreachable, the stream broken or
 * silent, a gateway's 5xx, 408 or 429. Never a refusal of the server's own (its error codes).
 */
function isRetryable(error: unknown): boolean {
  if (!isSwitchboardError(error)) return false;
  if (isSwitchboardError(error, 'http_status')) {
    const status = error.details?.status ?? 0;
    return status >= 500 || status === 408 || status === 429;
  }
  return (
    (error.code === 'connection_refused' && error.details?.reason !== 'offline') ||
    error.code === 'connection_lost' ||
    error.code === 'timeout'
  );
}
