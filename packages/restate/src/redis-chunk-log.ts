import { createClient, type RedisClientType } from '@redis/client';
import { SwitchboardError, type Chunk } from '@switchboard/core';
import { chunkFromJson, chunkToJson } from './chunk-json.ts';

/** Options of {@link RedisChunkLog}. */
export interface RedisChunkLogOptions {
  /** `redis://host:port`. */
  url: string;
  /** Prefix of every key. Default `switchboard:`. */
  keyPrefix?: string;
  /** How long a run's chunks stay readable after its last chunk (ms). Default 3 600 000. */
  retainMs?: number;
  /** How long a reader blocks on one read before it checks its signal again (ms). Default 1 000. */
  pollMs?: number;
}

/**
 * Where the chunks of Restate-run agents go: one Redis stream per run
 * (`<prefix>chunks:<threadId>:<runId>`). The worker that really runs a step appends its chunks
 * (never on replay, see `restateSteps`); any process reads them — a live reader blocks for the
 * next ones (`XREAD BLOCK`), a late reader replays the finished run's chunks from the start.
 * Chunks are numbered by their place in the stream (`sequence` 0, 1, …), so a run continued on
 * another worker after a crash still numbers its chunks without a gap or a repeat.
 *
 * Redis rather than the history store: chunks are many small writes that readers wait on, which
 * Redis streams serve as one append and one blocking read, and they are transient (kept
 * `retainMs`); the history store keeps what lasts (the run's rows).
 */
export class RedisChunkLog {
  readonly #url: string;
  readonly #prefix: string;
  readonly #retainMs: number;
  readonly #pollMs: number;
  #client: Promise<RedisClientType> | undefined;

  constructor(options: RedisChunkLogOptions) {
    this.#url = options.url;
    this.#prefix = options.keyPrefix ?? 'switchboard:';
    this.#retainMs = options.retainMs ?? 3_600_000;
    this.#pollMs = options.pollMs ?? 1_000;
  }

  /** Appends `chunk` to its run's stream and renews the stream's expiry. */
  async append(threadId: string, chunk: Chunk): Promise<void> {
    const client = await this.#connection();
    const key = this.#key(threadId, chunk.runId);
    await client
      .multi()
      .xAdd(key, '*', { chunk: JSON.stringify(chunkToJson(chunk)) })
      .pExpire(key, this.#retainMs)
      .exec();
  }

  /** How many chunks the run's stream holds (where a resumed part of the run starts). */
  async length(threadId: string, runId: string): Promise<number> {
    const client = await this.#connection();
    return await client.xLen(this.#key(threadId, runId));
  }

  /**
   * The run's chunks from place `from` on, in order, each numbered by its place; ends after a
   * terminal chunk (`run.completed`, `run.paused`, `run.failed`, `run.cancelled`) or when
   * `signal` aborts.
   */
  async *read(
    threadId: string,
    runId: string,
    options: { from?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<Chunk> {
    const key = this.#key(threadId, runId);
    // A blocking read holds its connection: one of its own per reader.
    const client = createClient({ url: this.#url, disableOfflineQueue: true });
    client.on('error', () => undefined);
    await client.connect();
    try {
      let lastId = '0-0';
      let place = 0;
      const from = options.from ?? 0;
      for (;;) {
        if (options.signal?.aborted === true) return;
        const answer = (await client.xRead({ key, id: lastId }, { BLOCK: this.#pollMs })) as
          { messages: { id: string; message: Record<string, string> }[] }[] | null;
        for (const message of answer?.[0]?.messages ?? []) {
          lastId = message.id;
          const chunk = chunkFromJson(JSON.parse(message.message['chunk'] ?? 'null') as Chunk);
          const sequence = place++;
          if (sequence < from) continue;
          yield { ...chunk, sequence };
          if (isTerminal(chunk)) return;
        }
      }
    } finally {
      client.destroy();
    }
  }

  /** Closes the writing connection. */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) (await client).destroy();
  }

  #key(threadId: string, runId: string): string {
    return `${this.#prefix}chunks:${threadId}:${runId}`;
  }

  #connection(): Promise<RedisClientType> {
    if (this.#client === undefined) {
      const client = createClient({ url: this.#url, disableOfflineQueue: true });
      client.on('error', () => undefined);
      this.#client = client.connect().then(
        () => client as RedisClientType,
        (error: unknown) => {
          this.#client = undefined;
          throw new SwitchboardError(
            'connection_refused',
            `Redis at ${this.#url}: ${String(error)}`,
          );
        },
      );
    }
    return this.#client;
  }
}

/** True for the chunk that ends a run (or the part of it up to a pause). */
export function isTerminal(chunk: Chunk): boolean {
  return (
    chunk.type === 'run.completed' ||
    chunk.type === 'run.paused' ||
    chunk.type === 'run.failed' ||
    chunk.type === 'run.cancelled'
  );
}
