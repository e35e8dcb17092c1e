import type { Agent } from '../agent/agent.ts';
import { OUTCOME_UNKNOWN } from '../agent/recover-run.ts';
import type { Chunk } from '../agent/chunks.ts';
import type { Interrupt, Resolution } from '../vocabulary/interrupts.ts';
import type { RunHandle, RunResult } from '../agent/run-result.ts';
import { SwitchboardError, type SwitchboardErrorCode } from '../errors/switchboard-error.ts';
import type { RunRecord } from '../history/history-store.ts';
import type { McpAuthorizeOutcome } from '../mcp/mcp-server.ts';
import { chatMessagesFromItems, type ChatMessage, type ChatPart } from './chat-message.ts';
import { followRun } from './follow-run.ts';

/**
 * What a chat is doing. `paused`: interrupts wait for the human. `running-elsewhere`: the
 * thread's run is running in another client (another tab, process or `Agent`, e.g. the tab that
 * won a race to approve the same call): the chat shows what that run has stored and follows it
 * until it ends; a new message would be refused (`run_in_progress`) until then.
 */
export type ChatStatus =
  'idle' | 'loading' | 'streaming' | 'paused' | 'running-elsewhere' | 'error';

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
 *
 * Several clients on one thread (two tabs over one IndexedDB store): an answer another client
 * gave first (`run_claimed`) is no error here — the chat reloads the thread and shows what is
 * stored; while the other client's run is still `running` the status is `running-elsewhere`
 * and the chat reads the thread every second until that run ends, so every tab ends showing the
 * same outcome (it stops reading when its last subscriber leaves, and starts again with the
 * next one; `send` and `resolve` stop it too). A run left
 * `running` by a page that closed or reloaded mid-run is recovered when its lease expires (see
 * `Agent.loadThread`): its open calls show an `outcome_unknown` output and the thread continues.
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
  /** Stops following another client's run (see {@link followRun}). */
  #following: AbortController | undefined;
  /** What the snapshot shows of the stored rows, to notify only when it changed. */
  #shownRows = '';

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
    // Following stops when nobody looks (a closed view) and starts again with a new subscriber.
    if (this.#snapshot.status === 'running-elsewhere') this.#follow();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0) return;
      this.#unwatchServers?.();
      this.#unwatchServers = undefined;
      this.#stopFollowing();
    };
  }

  getSnapshot(): ChatSnapshot {
    return this.#snapshot;
  }

  /**
   * Loads the thread's stored messages and pending interrupts (once; later calls share it),
   * through `Agent.loadThread`: a run left `running` by a page that closed mid-run is recovered
   * once its lease expired. A run still `running` in another client gives the status
   * `running-elsewhere`, and the chat follows it until it ends.
   */
  load(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#loaded ??= (async () => {
      this.#set({ status: 'loading' });
      try {
        this.#showRows(await this.agent.loadThread(this.#snapshot.threadId, options));
        if (this.#snapshot.status === 'running-elsewhere') this.#follow();
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
    this.#stopFollowing();
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
    this.#stopFollowing();
    const shown = this.#snapshot.interrupts.some((interrupt) => interrupt.callId === callId);
    const answered = this.#snapshot.interrupts.filter((interrupt) => interrupt.callId !== callId);
    const handle = this.agent.execute({
      threadId: this.#snapshot.threadId,
      resolutions: [resolution],
    });
    this.#snapshot = { ...this.#snapshot, interrupts: answered };
    return await this.#stream(handle, this.#snapshot.messages, (error) =>
      answeredElsewhere(error, shown),
    );
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

  /** Stops the streaming run, if any. (A run of another client is not this chat's to stop.) */
  stop(): void {
    this.#run?.stop();
  }

  /**
   * Streams `run` into the snapshot. `elsewhere` is given for a resume: a failure for which it
   * is true means another client answered first — not shown as an error; the thread is read
   * again.
   */
  async #stream(
    run: RunHandle,
    messages: readonly ChatMessage[],
    elsewhere?: (error: SwitchboardError) => boolean,
  ): Promise<RunResult> {
    const resumed = elsewhere !== undefined;
    this.#run = run;
    const base = { ...this.#snapshot };
    delete base.error;
    this.#snapshot = { ...base, messages, status: 'streaming' };
    this.#notify();
    // A resumed run continues the paused run's assistant message, as the stored thread shows it
    // (so a tab that followed the run from history shows the same messages).
    const last = messages.at(-1);
    const assistantId = resumed && last?.role === 'assistant' ? last.id : crypto.randomUUID();
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
      if (elsewhere?.(result.error) === true) await this.#reload();
      else this.#set({ status: 'error', error: result.error, interrupts: [] });
    } else {
      this.#set({ status: 'idle', interrupts: [] });
    }
    const queued = this.#queued.shift();
    if (queued !== undefined && this.#snapshot.interrupts.some((i) => i.callId === queued.callId)) {
      return (await this.resolve(queued.callId, queued.action, queued.content)) ?? result;
    }
    return result;
  }

  /** Reads the thread again and shows it (following a run another client runs). */
  async #reload(): Promise<void> {
    try {
      this.#showRows(await this.agent.loadThread(this.#snapshot.threadId));
      if (this.#snapshot.status === 'running-elsewhere') this.#follow();
    } catch (error) {
      this.#set({ status: 'error', error: asLoadError(error), interrupts: [] });
    }
  }

  /** Shows the stored `runs`; see {@link storedView}. */
  #showRows(runs: readonly RunRecord[], followed = false): void {
    const key = rowsKey(runs);
    if (key === this.#shownRows && this.#snapshot.status === 'running-elsewhere') return;
    this.#shownRows = key;
    const view = storedView(runs, followed);
    const base = { ...this.#snapshot };
    delete base.error;
    this.#snapshot = { ...base, ...view };
    this.#notify();
  }

  /** Starts following the thread's run of another client, unless already following. */
  #follow(): void {
    if (this.#following !== undefined || this.#run !== undefined) return;
    const controller = new AbortController();
    this.#following = controller;
    const signal = controller.signal;
    followRun({
      load: (loadSignal) => this.agent.loadThread(this.#snapshot.threadId, { signal: loadSignal }),
      onRows: (runs) => this.#showRows(runs, true),
      signal,
    }).then(
      () => {
        if (this.#following === controller) this.#following = undefined;
      },
      (error: unknown) => {
        if (this.#following !== controller) return;
        this.#following = undefined;
        this.#set({ status: 'error', error: asLoadError(error), interrupts: [] });
      },
    );
  }

  #stopFollowing(): void {
    this.#following?.abort();
    this.#following = undefined;
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

/**
 * A resume that failed because another client answered first: `run_claimed`, or — for a call
 * this chat showed as waiting (`shown`) — `not_paused` / `unknown_call_id` (the other client's
 * answer was stored before this one read the thread).
 */
function answeredElsewhere(error: SwitchboardError, shown: boolean): boolean {
  return (
    error.code === 'run_claimed' ||
    (shown && (error.code === 'not_paused' || error.code === 'unknown_call_id'))
  );
}

/**
 * What the snapshot shows of stored rows: the messages, the paused run's interrupts, and the
 * status (`running-elsewhere` while the last run is `running`). A run the chat `followed` that
 * ended `failed` shows its error, as the tab that ran it does; not a recovered one (code
 * `outcome_unknown`): its call cards say what is unknown and the thread continues, and it then
 * looks the same whether the lease expired before or after this chat loaded the thread.
 */
function storedView(
  runs: readonly RunRecord[],
  followed: boolean,
): Pick<ChatSnapshot, 'messages' | 'interrupts' | 'status' | 'error'> {
  const last = runs.at(-1);
  const interrupts =
    last?.status === 'paused'
      ? (last.state?.pending ?? []).map((pending) => pending.interrupt)
      : [];
  const messages = markWaiting(chatMessagesFromItems(runs.flatMap((run) => run.items)), interrupts);
  if (last?.status === 'running') return { messages, interrupts, status: 'running-elsewhere' };
  if (
    followed &&
    last?.status === 'failed' &&
    last.error !== undefined &&
    last.error.code !== OUTCOME_UNKNOWN
  ) {
    const error = new SwitchboardError(last.error.code as SwitchboardErrorCode, last.error.message);
    return { messages, interrupts, status: 'error', error };
  }
  return { messages, interrupts, status: interrupts.length > 0 ? 'paused' : 'idle' };
}

/** What of `runs` the snapshot shows (a lease renewal alone changes nothing shown). */
function rowsKey(runs: readonly RunRecord[]): string {
  const last = runs.at(-1);
  return [runs.length, last?.runId, last?.status, last?.items.length].join(':');
}

function asLoadError(error: unknown): SwitchboardError {
  return new SwitchboardError('history_error', 'Could not load the thread.', { cause: error });
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
