import type { Agent } from '../agent/agent.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle, RunResult } from '../agent/run-result.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { chatMessagesFromItems, type ChatMessage, type ChatPart } from './chat-message.ts';

/** What a chat is doing. */
export type ChatStatus = 'idle' | 'loading' | 'streaming' | 'error';

/** An immutable view of a chat; a new object only when something changed. */
export interface ChatSnapshot {
  threadId: string;
  messages: readonly ChatMessage[];
  status: ChatStatus;
  /** The last run's error, until the next `send`. */
  error?: SwitchboardError;
}

/**
 * One thread of an {@link Agent} as a store a UI can subscribe to (`subscribe` / `getSnapshot`,
 * the `useSyncExternalStore` contract). It loads the thread's history, sends user messages and
 * folds the run's chunks into {@link ChatMessage}s.
 */
export class AgentChat {
  readonly agent: Agent;
  #snapshot: ChatSnapshot;
  #run: RunHandle | undefined;
  readonly #listeners = new Set<() => void>();
  #loaded: Promise<void> | undefined;

  constructor(agent: Agent, options: { threadId?: string } = {}) {
    this.agent = agent;
    this.#snapshot = {
      threadId: options.threadId ?? crypto.randomUUID(),
      messages: [],
      status: 'idle',
    };
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  getSnapshot(): ChatSnapshot {
    return this.#snapshot;
  }

  /** Loads the thread's stored messages (once; later calls share the first load). */
  load(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#loaded ??= (async () => {
      this.#set({ status: 'loading' });
      try {
        const items = await this.agent.history.loadItems(this.#snapshot.threadId, options);
        this.#set({ messages: chatMessagesFromItems(items), status: 'idle' });
      } catch (error) {
        this.#loaded = undefined;
        this.#set({
          status: 'error',
          error: new SwitchboardError('history_error', 'Could not load the thread.', {
            cause: error,
          }),
        });
      }
    })();
    return this.#loaded;
  }

  /**
   * Sends a user message and streams the agent's answer into the snapshot.
   *
   * @throws SwitchboardError `run_in_progress` while a run of this chat is streaming.
   */
  async send(text: string): Promise<RunResult> {
    if (this.#run !== undefined) {
      throw new SwitchboardError(
        'run_in_progress',
        'Wait for the answer or stop it before sending again.',
      );
    }
    await this.load();
    const userMessage: ChatMessage = {
      id: crypto.randomUUID(),
      role: 'user',
      parts: [{ type: 'text', text }],
    };
    const run = this.agent.execute({ threadId: this.#snapshot.threadId, messages: text });
    this.#run = run;
    const base = { ...this.#snapshot };
    delete base.error;
    this.#snapshot = { ...base, messages: [...base.messages, userMessage], status: 'streaming' };
    this.#notify();
    const assistantId = crypto.randomUUID();
    for await (const chunk of run.chunks) this.#apply(assistantId, chunk);
    this.#run = undefined;
    const result = await run.result();
    this.#set(
      result.status === 'failed' && result.error !== undefined
        ? { status: 'error', error: result.error }
        : { status: 'idle' },
    );
    return result;
  }

  /** Stops the streaming run, if any. */
  stop(): void {
    this.#run?.stop();
  }

  #apply(assistantId: string, chunk: Chunk): void {
    switch (chunk.type) {
      case 'text.delta':
      case 'reasoning.delta': {
        const kind = chunk.type === 'text.delta' ? 'text' : 'reasoning';
        this.#updateAssistant(assistantId, (parts) => {
          const last = parts.at(-1);
          if (last?.type === kind)
            return [...parts.slice(0, -1), { type: kind, text: last.text + chunk.delta }];
          return [...parts, { type: kind, text: chunk.delta }];
        });
        break;
      }
      case 'tool.call':
        this.#updateAssistant(assistantId, (parts) => [
          ...parts,
          {
            type: 'tool-call',
            callId: chunk.callId,
            toolName: chunk.toolName,
            ...(chunk.server === undefined ? {} : { server: chunk.server }),
            arguments: chunk.arguments,
            state: 'running',
          },
        ]);
        break;
      case 'tool.progress':
      case 'tool.result':
        this.#updateAssistant(assistantId, (parts) =>
          parts.map((part) => {
            if (part.type !== 'tool-call' || part.callId !== chunk.callId) return part;
            if (chunk.type === 'tool.result') {
              return {
                ...part,
                output: chunk.output,
                state: chunk.output.isError === true ? 'error' : 'done',
              };
            }
            const progress: NonNullable<typeof part.progress> = { progress: chunk.progress };
            if (chunk.total !== undefined) progress.total = chunk.total;
            if (chunk.message !== undefined) progress.message = chunk.message;
            return { ...part, progress };
          }),
        );
        break;
      case 'run.cancelled':
        this.#updateAssistant(assistantId, (parts) =>
          parts.map((part) =>
            part.type === 'tool-call' && part.state === 'running'
              ? {
                  ...part,
                  state: 'error',
                  output: { text: 'Stopped before it finished.', isError: true },
                }
              : part,
          ),
        );
        break;
      default:
        break;
    }
  }

  #updateAssistant(assistantId: string, change: (parts: ChatPart[]) => ChatPart[]): void {
    const messages = [...this.#snapshot.messages];
    const index = messages.findIndex((message) => message.id === assistantId);
    const current: ChatMessage =
      index === -1 ? { id: assistantId, role: 'assistant', parts: [] } : messages[index]!;
    const next = { ...current, parts: change(current.parts) };
    if (index === -1) messages.push(next);
    else messages[index] = next;
    this.#set({ messages });
  }

  #set(change: Partial<ChatSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...change };
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
