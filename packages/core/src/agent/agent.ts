import { SwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { HistoryStore } from '../history/history-store.ts';
import type { MessageItem } from '../items.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { Model } from '../model/model.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { RunHandle } from './run-result.ts';
import { startRun } from './run.ts';

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** A name for logs and UIs. */
  name: string;
  /** System instructions sent with every model call. */
  instructions?: string;
  model: Model;
  /** Local tools (see `tool()`). */
  tools?: Tool[];
  /** Remote MCP servers whose tools the agent may call (see `mcpServer()`). */
  mcpServers?: McpServer[];
  /** Where threads are kept. Default: a new {@link MemoryHistoryStore}. */
  history?: HistoryStore;
  /** Model calls per run before it fails with `max_turns_exceeded`. Default 50. */
  maxTurns?: number;
}

/** A user message: plain text, or a message item. */
export type MessageInput = string | MessageItem;

/** Input of {@link Agent.execute}. */
export interface ExecuteInput {
  /** The thread to continue; a new thread (random id) when absent. */
  threadId?: string;
  /** New messages for the model; at least one. */
  messages: MessageInput | MessageInput[];
  /** Caller data passed to every tool as `context.runContext` (e.g. the signed-in user). */
  runContext?: unknown;
  /** Aborting it stops the run like `handle.stop()`. */
  signal?: AbortSignal;
}

/**
 * An agent: a model, instructions and tools, run in a loop (DESIGN.md §3).
 *
 * ```ts
 * const agent = new Agent({ name: 'helper', model, mcpServers: [mcpServer({ url })] });
 * const run = agent.execute({ messages: 'What is 2 plus 3?' });
 * for await (const chunk of run.chunks) if (chunk.type === 'text.delta') print(chunk.delta);
 * ```
 */
export class Agent {
  readonly name: string;
  readonly options: Readonly<AgentOptions>;
  readonly history: HistoryStore;
  readonly #activeThreads = new Set<string>();

  constructor(options: AgentOptions) {
    this.name = options.name;
    this.options = options;
    this.history = options.history ?? new MemoryHistoryStore();
    if (options.maxTurns !== undefined && !(options.maxTurns >= 1)) {
      throw new SwitchboardError('invalid_input', 'maxTurns must be at least 1.');
    }
  }

  /**
   * Starts a run and returns its handle at once. Model → tool calls (run in parallel, outputs
   * kept in call order) → model … until the model answers without tool calls or `maxTurns`
   * model calls were made. Failures never throw here: they end the run with `run.failed`.
   *
   * @throws SwitchboardError `invalid_input` when there are no messages;
   *   `run_in_progress` when this agent is already running the same thread.
   */
  execute(input: ExecuteInput): RunHandle {
    const messages = (Array.isArray(input.messages) ? input.messages : [input.messages]).map(
      (message): MessageItem =>
        typeof message === 'string' ? { type: 'message', role: 'user', content: message } : message,
    );
    if (messages.length === 0) {
      throw new SwitchboardError('invalid_input', 'execute() needs at least one message.');
    }
    const threadId = input.threadId ?? crypto.randomUUID();
    if (this.#activeThreads.has(threadId)) {
      throw new SwitchboardError(
        'run_in_progress',
        `Thread ${threadId} already has a run in progress; stop it or wait for its result.`,
      );
    }
    this.#activeThreads.add(threadId);
    const handle = startRun({
      agent: this.options,
      history: this.history,
      threadId,
      messages,
      runContext: input.runContext,
      signal: input.signal,
    });
    void handle.result().finally(() => this.#activeThreads.delete(threadId));
    return handle;
  }
}
