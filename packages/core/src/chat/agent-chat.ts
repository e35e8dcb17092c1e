import type { Agent } from '../agent/agent.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { Interrupt, Resolution } from '../agent/interrupt.ts';
import type { RunHandle, RunResult } from '../agent/run-result.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { McpAuthorizeOutcome } from '../mcp/mcp-server.ts';
import { chatMessagesFromItems, type ChatMessage, type ChatPart } from './chat-message.ts';

/** What a chat is doing. `paused`: interrupts wait for the human. */
export type ChatStatus = 'idle' | 'loading' | 'streaming' | 'paused' | 'error';

/** An immutable view of a chat; a new object only when something changed. */
export interface ChatSnapshot {
  threadId: string;
  messages: readonly ChatMessage[];
  status: ChatStatus;
  /** Calls held for the human (approvals, forms, URLs), oldest first. */
  interrupts: readonly Interrupt[];
  /** The last run's error (or an invalid answer's), until the next `send` or `resolve`. */
  error?: SwitchboardError;
  /**
   * Names of the agent's MCP servers waiting for the user to sign in (status `needs-auth`):
   * show a "Connect" button that calls {@link AgentChat.connect}. Kept current while subscribed.
   */
  serversNeedingAuth: readonly string[];
}

/**
 * One thread of an {@link Agent} as a store a UI can subscribe to (`subscribe` / `getSnapshot`,
 * the `useSyncExternalStore` contract). It loads the thread's history — including a paused
 * run's interrupts, so a reload shows the same pending approval or form — sends user messages,
 * answers interrupts and folds the run's chunks into {@link ChatMessage}s.
 */
export class AgentChat {
  readonly agent: Agent;
  #snapshot: ChatSnapshot;
  #run: RunHandle | undefined;
  readonly #listeners = new Set<() => void>();
  #loaded: Promise<void> | undefined;
  /** Answers given while a run was streaming; sent when it ends. */
  #queued: Resolution[] = [];
  /** Unsubscribes from the MCP servers' status while this chat has listeners. */
  #unwatchServers: (() => void) | undefined;

  constructor(agent: Agent, options: { threadId?: string } = {}) {
    this.agent = agent;
    this.#snapshot = {
      threadId: options.threadId ?? crypto.randomUUID(),
      messages: [],
      status: 'idle',
      interrupts: [],
      serversNeedingAuth: serversNeedingAuth(agent),
    };
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    this.#unwatchServers ??= this.#watchServers();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0) return;
      this.#unwatchServers?.();
      this.#unwatchServers = undefined;
    };
  }

  getSnapshot(): ChatSnapshot {
    return this.#snapshot;
  }

  /** Loads the thread's stored messages and pending interrupts (once; later calls share it). */
  load(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#loaded ??= (async () => {
      this.#set({ status: 'loading' });
      try {
        const runs = await this.agent.history.loadRuns(this.#snapshot.threadId, options);
        const last = runs.at(-1);
        const interrupts =
          last?.status === 'paused'
            ? (last.state?.pending ?? []).map((pending) => pending.interrupt)
            : [];
        const messages = markWaiting(
          chatMessagesFromItems(runs.flatMap((run) => run.items)),
          interrupts,
        );
        this.#set({ messages, interrupts, status: interrupts.length > 0 ? 'paused' : 'idle' });
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
   * Sends a user message and streams the agent's answer into the snapshot. On a paused thread
   * the pending interrupts are closed as unanswered first (by the agent).
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
    const messages = this.#snapshot.messages.map((message) => closeWaiting(message));
    return await this.#stream(
      this.agent.execute({ threadId: this.#snapshot.threadId, messages: text }),
      [...messages, userMessage],
    );
  }

  /**
   * Answers one interrupt: `approve` (with `content` for a form), `reject` or `cancel`. The
   * paused run continues at once; answers given while a run streams are sent when it ends.
   * An invalid form answer leaves the interrupt pending and sets `error`
   * (code `invalid_resolution`).
   */
  async resolve(
    callId: string,
    action: Resolution['action'],
    content?: Record<string, unknown>,
  ): Promise<RunResult | undefined> {
    const resolution: Resolution =
      content === undefined ? { callId, action } : { callId, action, content };
    if (this.#run !== undefined) {
      this.#queued.push(resolution);
      return undefined;
    }
    await this.load();
    const answered = this.#snapshot.interrupts.filter((interrupt) => interrupt.callId !== callId);
    const handle = this.agent.execute({
      threadId: this.#snapshot.threadId,
      resolutions: [resolution],
    });
    this.#snapshot = { ...this.#snapshot, interrupts: answered };
    return await this.#stream(handle, this.#snapshot.messages);
  }

  /** Approves a held call. */
  approve(callId: string): Promise<RunResult | undefined> {
    return this.resolve(callId, 'approve');
  }

  /** Rejects a held call (MCP elicitation: `decline`). */
  reject(callId: string): Promise<RunResult | undefined> {
    return this.resolve(callId, 'reject');
  }

  /**
   * Signs the user in to the agent's MCP server `server` (`McpServer.authorize()`: a popup in
   * the browser, so call it straight from the click handler).
   *
   * @throws SwitchboardError `invalid_input` when the agent has no MCP server of that name, or
   *   any failure of `McpServer.authorize()`.
   */
  connect(server: string): Promise<McpAuthorizeOutcome> {
    const found = this.agent.options.mcpServers?.find((candidate) => candidate.name === server);
    if (found === undefined) {
      return Promise.reject(
        new SwitchboardError('invalid_input', `The agent has no MCP server named "${server}".`),
      );
    }
    return found.authorize();
  }

  /**
   * Answers an `authorization` interrupt: signs in to its server ({@link connect}), then
   * resumes with `approve` so the call is made again. When the popup was blocked, the page is
   * leaving for the authorization server: the interrupt stays pending (still there after the
   * reload; answer it again then). A failed sign-in leaves it pending and rejects.
   */
  async authorizeAndResume(callId: string): Promise<RunResult | undefined> {
    const interrupt = this.#snapshot.interrupts.find((candidate) => candidate.callId === callId);
    if (interrupt?.mode !== 'authorization' || interrupt.server === undefined) {
      throw new SwitchboardError(
        'unknown_call_id',
        `No authorization interrupt of call "${callId}" is waiting.`,
        { details: { callId } },
      );
    }
    const outcome = await this.connect(interrupt.server);
    if (outcome === 'redirected') return undefined;
    return await this.resolve(callId, 'approve');
  }

  /** Stops the streaming run, if any. */
  stop(): void {
    this.#run?.stop();
  }

  async #stream(run: RunHandle, messages: readonly ChatMessage[]): Promise<RunResult> {
    this.#run = run;
    const base = { ...this.#snapshot };
    delete base.error;
    this.#snapshot = { ...base, messages, status: 'streaming' };
    this.#notify();
    const assistantId = crypto.randomUUID();
    for await (const chunk of run.chunks) this.#apply(assistantId, chunk);
    this.#run = undefined;
    const result = await run.result();
    if (result.status === 'paused') {
      this.#set({
        status: 'paused',
        interrupts: result.interrupts,
        ...(result.error === undefined ? {} : { error: result.error }),
      });
    } else if (result.status === 'failed' && result.error !== undefined) {
      this.#set({ status: 'error', error: result.error, interrupts: [] });
    } else {
      this.#set({ status: 'idle', interrupts: [] });
    }
    const queued = this.#queued.shift();
    if (queued !== undefined && this.#snapshot.interrupts.some((i) => i.callId === queued.callId)) {
      return (await this.resolve(queued.callId, queued.action, queued.content)) ?? result;
    }
    return result;
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
        this.#updateCall(chunk.callId, (part) => {
          if (chunk.type === 'tool.result') {
            const settled = {
              ...part,
              output: chunk.output,
              state: chunk.output.isError === true ? 'error' : 'done',
            } as const;
            delete (settled as { progress?: unknown }).progress;
            return settled;
          }
          const progress: NonNullable<typeof part.progress> = { progress: chunk.progress };
          if (chunk.total !== undefined) progress.total = chunk.total;
          if (chunk.message !== undefined) progress.message = chunk.message;
          return { ...part, progress };
        });
        break;
      case 'run.paused':
        this.#snapshot = {
          ...this.#snapshot,
          messages: markWaiting(this.#snapshot.messages, chunk.interrupts),
        };
        this.#set({ interrupts: chunk.interrupts });
        break;
      case 'run.cancelled':
        this.#set({
          messages: this.#snapshot.messages.map((message) => closeWaiting(message, true)),
        });
        break;
      default:
        break;
    }
  }

  /** Updates the part of `callId` wherever it is (a resumed call lives in an earlier message). */
  #updateCall(
    callId: string,
    change: (part: Extract<ChatPart, { type: 'tool-call' }>) => ChatPart,
  ): void {
    const messages = this.#snapshot.messages.map((message) =>
      message.parts.some((part) => part.type === 'tool-call' && part.callId === callId)
        ? {
            ...message,
            parts: message.parts.map((part) =>
              part.type === 'tool-call' && part.callId === callId ? change(part) : part,
            ),
          }
        : message,
    );
    this.#set({ messages });
  }

  #updateAssistant(assistantId: string, change: (parts: ChatPart[]) => ChatPart[]): void {
    const messages = [...this.#snapshot.messages];
    const index = messages.findIndex((message) => message.id === assistantId);
    const current: ChatMessage =
      index === -1
        ? { id: assistantId, role: 'assistant', parts: [] }
        : (messages[index] as ChatMessage);
    const next = { ...current, parts: change(current.parts) };
    if (index === -1) messages.push(next);
    else messages[index] = next;
    this.#set({ messages });
  }

  #watchServers(): () => void {
    const update = (): void => {
      const names = serversNeedingAuth(this.agent);
      const current = this.#snapshot.serversNeedingAuth;
      if (names.length === current.length && names.every((name, i) => name === current[i])) return;
      this.#set({ serversNeedingAuth: names });
    };
    const unsubscribes = (this.agent.options.mcpServers ?? []).map((server) =>
      server.subscribe(update),
    );
    update();
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  #set(change: Partial<ChatSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...change };
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** The names of `agent`'s MCP servers whose status is `needs-auth`, in the agent's order. */
function serversNeedingAuth(agent: Agent): string[] {
  return (agent.options.mcpServers ?? [])
    .filter((server) => server.getSnapshot().status === 'needs-auth')
    .map((server) => server.name);
}

/** Marks the tool-call parts of held calls as `waiting`. */
function markWaiting(
  messages: readonly ChatMessage[],
  interrupts: readonly Interrupt[],
): ChatMessage[] {
  const held = new Set(interrupts.map((interrupt) => interrupt.callId));
  return messages.map((message) =>
    message.parts.some((part) => part.type === 'tool-call' && held.has(part.callId))
      ? {
          ...message,
          parts: message.parts.map((part) =>
            part.type === 'tool-call' && held.has(part.callId)
              ? { ...part, state: 'waiting' }
              : part,
          ),
        }
      : message,
  );
}

/** Ends running/waiting tool-call parts: as stopped (a cancelled run) or as unanswered. */
function closeWaiting(message: ChatMessage, stopped = false): ChatMessage {
  const open = (part: ChatPart) =>
    part.type === 'tool-call' &&
    (part.state === 'waiting' || (stopped && part.state === 'running'));
  if (!message.parts.some(open)) return message;
  return {
    ...message,
    parts: message.parts.map((part) =>
      open(part) && part.type === 'tool-call'
        ? {
            ...part,
            state: 'error',
            output: {
              text: stopped
                ? 'The run was stopped before this tool call finished.'
                : 'The user did not answer and moved on; this tool call was not completed.',
              isError: true,
            },
          }
        : part,
    ),
  };
}
