import type { AgentEndpoint } from '../agent/agent-endpoint.ts';
import type { AppToolCallHandle, AppToolCallInput } from '../agent/app-tool-call.ts';
import { messageOf } from '../errors/message-of.ts';
import type { AppModelContextInput } from '../agent/app-model-context.ts';
import type { RunHandle, RunResult } from '../agent/run-result.ts';
import type { Chunk } from '../agent/chunks.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { BranchSelection, RunRecord } from '../history/history-store.ts';
import { newestLeafUnder } from '../history/run-tree.ts';
import { Store } from '../internal/store.ts';
import type { McpAuthorizeOutcome } from '../mcp/mcp-server.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';
import type { MessageResourcePart, ToolOutput } from '../vocabulary/items.ts';
import { toolError } from '../tools/tool-errors.ts';
import { attachmentFile, type AttachmentInput } from '../agent/attachment-input.ts';
import {
  chatMessagesFromItems,
  chatResourcePart,
  type ChatAttachmentPart,
  type ChatMessage,
} from './chat-message.ts';
import { withRunId } from './branch-messages.ts';
import { planBranchRun } from './branch-run.ts';
import { applyChunk, closeOpenCalls, fillServers } from './chat-reducer.ts';
import { chunkBatches } from './chunk-batches.ts';
import { joinDeltas } from './join-deltas.ts';
import { nextModelRetry } from './chat-model-retry.ts';
import {
  endedView,
  withModelRetry,
  withModelWaiting,
  withoutError,
  type ChatSnapshot,
} from './chat-snapshot.ts';
import { nextModelWaiting } from './chat-model-waiting.ts';
import { RunFollower } from './follow-run.ts';
import {
  serversNeedingAuth,
  watchMcpServers,
  withServersNeedingAuth,
} from './servers-needing-auth.ts';
import { rowsKey, serverOfCall, storedView } from './stored-view.ts';

export type { ChatSnapshot, ChatStatus } from './chat-snapshot.ts';

/** Options of `AgentChat.send` (and `useAgent().send`). */
export interface ChatSendOptions {
  /** MCP resources attached as context (`resourceParts(await server.readResource(uri))`). */
  resources?: readonly MessageResourcePart[];
  /**
   * Files attached to the message (`File`, `Blob`, or bytes with a name and MIME type),
   * checked against `maxAttachmentBytes` and the model's accepted types before anything is sent
   * (docs/conversations.md, "Attachments").
   */
  attachments?: readonly AttachmentInput[];
}

/** Options of the {@link AgentChat} constructor. */
export interface AgentChatOptions {
  /** The thread to show. Default a new random UUID (a new thread). */
  threadId?: string;
  /**
   * Holds a run's streamed text and reasoning deltas out of the snapshot until the UI is about
   * to render: when the chat starts holding deltas it calls `holdDeltas(fold)`, and folds every
   * delta held so far into the snapshot — one new snapshot — when `fold` is called (any time,
   * any number of times; a `fold` of an ended run does nothing). `useAgent` passes its
   * frame-batched store's `beforeNextFlush`, so a streaming answer makes one snapshot per
   * rendered frame instead of one per task of the stream. Any other chunk (a tool call, an
   * interrupt, the run's end), the end of the stream and a stream error fold what is held first,
   * so the messages are exactly those without holding, in the same order; only
   * `getSnapshot()` lags the stream by up to one `fold` meanwhile. Default: nothing held (one
   * snapshot per task of the stream).
   */
  holdDeltas?: (fold: () => void) => void;
}

/**
 * One thread of an agent ({@link AgentEndpoint}: an `Agent` in this page, or `remoteAgent` for
 * one that runs on a server) as a store a UI can subscribe to (`subscribe` / `getSnapshot`,
 * bound, the `useSyncExternalStore` contract). It loads the thread's history — including a
 * paused run's interrupts, so a reload shows the same pending approval or form — sends user
 * messages, answers interrupts and folds the run's chunks into {@link ChatMessage}s
 * (`chat-reducer.ts`).
 *
 * Several clients on one thread (two tabs over one IndexedDB store): an answer another client
 * gave first (`run_claimed`) is no error here — the chat reloads the thread and shows what is
 * stored; while the other client's run is still `running` the status is `running-elsewhere`
 * and the chat reads the thread every second until that run ends, so every tab ends showing the
 * same outcome (it stops reading when its last subscriber leaves, and starts again with the
 * next one; `send` and `resolve` stop it too). A run left
 * `running` by a page that closed or reloaded mid-run is recovered at once in a browser (its
 * presence lock is free), elsewhere when its lease expires (see `Agent.loadThread`): its open calls show an `outcome_unknown` output and the thread continues.
 */
export class AgentChat extends Store<ChatSnapshot> {
  readonly agent: AgentEndpoint;
  #run: RunHandle | undefined;
  #loaded: Promise<void> | undefined;
  /** Answers given while a run was streaming; sent when it ends. */
  #queued: Resolution[] = [];
  /** Unsubscribes from the MCP servers' status while this chat has listeners. */
  #unwatchServers: (() => void) | undefined;
  /** Follows another client's run of the thread (`running-elsewhere`) until it ends. */
  readonly #following = new RunFollower();
  /** What the snapshot shows of the stored rows, to notify only when it changed. */
  #shownRows = '';
  /** The thread's selected branch as last read or chosen (see `HistoryStore.selectBranch`). */
  #selection: BranchSelection | undefined;
  readonly #holdDeltas: AgentChatOptions['holdDeltas'];

  /** @param options See {@link AgentChatOptions}. */
  constructor(agent: AgentEndpoint, options: AgentChatOptions = {}) {
    super({
      threadId: options.threadId ?? crypto.randomUUID(),
      messages: [],
      status: 'idle',
      interrupts: [],
      serversNeedingAuth: serversNeedingAuth(agent),
    });
    this.agent = agent;
    this.#holdDeltas = options.holdDeltas;
  }

  /**
   * Loads the thread's stored messages and pending interrupts (once; later calls share it),
   * through `Agent.loadThread`: a run left `running` by a page that closed mid-run is recovered
   * (at once when its presence lock is free, else once its lease expired). A run still `running` in another client gives the status
   * `running-elsewhere`, and the chat follows it until it ends. A run recovered on MCP tasks the
   * closed page left running goes on at once (polling resumes; see `#resumeLeftTasks`).
   */
  load(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#loaded ??= (async () => {
      this.#patch({ status: 'loading' });
      try {
        this.#showRows(await this.#loadRows(options.signal));
        if (this.getSnapshot().status === 'running-elsewhere') this.#follow();
      } catch (error) {
        this.#loaded = undefined;
        this.#patch({ status: 'error', error: asLoadError(error) });
        return;
      }
      this.#resumeLeftTasks();
    })();
    return this.#loaded;
  }

  /**
   * A run recovered on calls that follow MCP tasks a closed page left running (interrupts of
   * mode `task`, and only those) goes on by itself: resuming polls the tasks again. Of two tabs
   * doing so, one claims the run; the other follows it.
   */
  #resumeLeftTasks(): void {
    const { threadId, interrupts } = this.getSnapshot();
    if (this.#run !== undefined || interrupts.length === 0) return;
    if (!interrupts.every((interrupt) => interrupt.mode === 'task')) return;
    const run = this.agent.execute({
      threadId,
      resolutions: interrupts.map((interrupt) => ({
        callId: interrupt.callId,
        action: 'approve' as const,
      })),
    });
    this.#stream(run, { interrupts: [] }, (error) => answeredElsewhere(error, true)).catch(
      (error: unknown) => this.#patch({ status: 'error', error: asLoadError(error) }),
    );
  }

  /**
   * Sends a user message and streams the agent's answer into the snapshot. On a paused thread
   * the pending interrupts are closed as unanswered first (by the agent).
   *
   * @param options `resources`: resources to attach as context (`resourceParts(await
   *   server.readResource(uri))`); each provider adapter converts them (docs/mcp-servers.md,
   *   "Resources as context"), and the message shows them as `resource` parts. `attachments`:
   *   files (`File`, `Blob`, bytes with name and type) stored in the history store's
   *   `attachments` and sent in each provider's format (docs/conversations.md, "Attachments");
   *   the message shows them as `attachment` parts.
   * @throws SwitchboardError `run_in_progress` while a run of this chat is streaming;
   *   `invalid_input` when an attachment is refused (too large, a type the model does not
   *   accept): nothing is sent, stored or shown, and the thread stays as it was.
   */
  async send(text: string, options: ChatSendOptions = {}): Promise<RunResult> {
    if (this.#run !== undefined) {
      throw new SwitchboardError(
        'run_in_progress',
        'Wait for the answer or stop it before sending again.',
      );
    }
    const resources = options.resources ?? [];
    const attachments = options.attachments ?? [];
    await this.load();
    this.#following.stop();
    const userMessage: ChatMessage = {
      id: crypto.randomUUID(),
      role: 'user',
      parts: [
        { type: 'text', text },
        ...resources.map(chatResourcePart),
        ...attachments.map(sendingAttachmentPart),
      ],
    };
    const messages = closeOpenCalls(this.getSnapshot().messages, 'unanswered');
    const run = this.agent.execute({
      threadId: this.getSnapshot().threadId,
      messages:
        attachments.length > 0
          ? { content: text, resources, attachments }
          : resources.length === 0
            ? text
            : { type: 'message', role: 'user', content: text, parts: [...resources] },
    });
    // A new message continues the shown branch, whose last run is a leaf: no siblings.
    userMessage.runId = run.runId;
    userMessage.branch = { index: 0, count: 1, siblings: [run.runId] };
    return await this.#stream(run, { messages: [...messages, userMessage] });
  }

  /**
   * Edits the user message of the run `runId` (`ChatMessage.runId`): a new branch from before
   * that message, with `text` (attached resources kept), and streams its answer. The old branch
   * stays, a sibling (`ChatMessage.branch`). A pause waiting on the thread is closed as
   * unanswered, as for {@link send} (docs/conversations.md, "Branches").
   *
   * @throws SwitchboardError `run_in_progress` while a run of this chat is streaming;
   *   `invalid_input` for an unknown run, one without a user message, or empty `text`.
   */
  async edit(runId: string, text: string): Promise<RunResult> {
    return await this.#branchFrom(runId, text);
  }

  /**
   * Runs the user message of the run `runId` again: a new answer on a new branch beside the
   * old one (which stays, a sibling). As {@link edit} otherwise.
   */
  async regenerate(runId: string): Promise<RunResult> {
    return await this.#branchFrom(runId, undefined);
  }

  /**
   * Shows the branch through the run `runId` (a sibling from `ChatMessage.branch.siblings`),
   * down to its most recent run, and stores the choice, so a reload shows it too. A paused run
   * on the branch left stays paused: switching back shows its interrupts again.
   *
   * @throws SwitchboardError `run_in_progress` while a run of this chat is streaming;
   *   `invalid_input` for an unknown run; `history_error` when the store fails.
   */
  async switchBranch(runId: string): Promise<void> {
    this.#assertIdle();
    await this.load();
    const runs = await this.agent.loadThread(this.getSnapshot().threadId);
    if (!runs.some((run) => run.runId === runId)) {
      throw new SwitchboardError('invalid_input', `The thread has no run "${runId}".`, {
        details: { reason: 'unknown_run' },
      });
    }
    // Not older than the newest run, whatever the clocks: a newer run would win over it.
    const selectedAt = Math.max(Date.now(), runs.at(-1)?.createdAt ?? 0);
    const selection = { leafRunId: newestLeafUnder(runs, runId), selectedAt };
    await this.agent.history.selectBranch(this.getSnapshot().threadId, selection);
    this.#selection = selection;
    this.#shownRows = '';
    this.#showRows(runs);
  }

  async #branchFrom(runId: string, text: string | undefined): Promise<RunResult> {
    this.#assertIdle();
    await this.load();
    this.#following.stop();
    const threadId = this.getSnapshot().threadId;
    const plan = planBranchRun(await this.agent.loadThread(threadId), runId, text);
    const run = this.agent.execute({
      threadId,
      messages: plan.input,
      parentRunId: plan.parentRunId,
    });
    const siblings = [...plan.siblings, run.runId];
    const started = chatMessagesFromItems(plan.input).map((message, index): ChatMessage => ({
      ...message,
      id: crypto.randomUUID(),
      runId: run.runId,
      ...(index === 0
        ? { branch: { index: siblings.length - 1, count: siblings.length, siblings } }
        : {}),
    }));
    return await this.#stream(run, { messages: [...plan.before, ...started], interrupts: [] });
  }

  #assertIdle(): void {
    if (this.#run !== undefined) {
      throw new SwitchboardError(
        'run_in_progress',
        'Wait for the answer or stop it before sending again.',
      );
    }
  }

  /**
   * The bytes of an attached file of this thread (`ChatAttachmentPart.attachmentId`) from the
   * agent's history store, for a thumbnail or a download; `undefined` when they are not stored.
   *
   * @throws SwitchboardError `history_error` when the store fails; `aborted`.
   */
  async readAttachment(
    attachmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Blob | undefined> {
    const store = this.agent.history.attachments;
    if (store === undefined) return undefined;
    return await store.get(this.getSnapshot().threadId, attachmentId, options);
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
    this.#following.stop();
    const { threadId, interrupts } = this.getSnapshot();
    const shown = interrupts.some((interrupt) => interrupt.callId === callId);
    const run = this.agent.execute({ threadId, resolutions: [resolution] });
    const answered = interrupts.filter((interrupt) => interrupt.callId !== callId);
    return await this.#stream(run, { interrupts: answered }, (error) =>
      answeredElsewhere(error, shown),
    );
  }

  /**
   * A `tools/call` of an MCP Apps view shown in this thread (`Agent.callToolFromApp`): the call
   * appears in the thread marked `requestedBy`, a call that needs approval shows as an interrupt
   * like the model's (answer it with {@link resolve}), and the promise gives the view its output
   * once the call ran or was refused. Never rejects: while a run of this chat streams, the
   * output is an error `run_in_progress`.
   */
  async callToolFromApp(
    input: Omit<AppToolCallInput, 'threadId'>,
    options: { signal?: AbortSignal } = {},
  ): Promise<ToolOutput> {
    await this.load();
    if (this.#run !== undefined || this.getSnapshot().interrupts.length > 0) {
      return toolError(
        'run_in_progress',
        this.#run === undefined
          ? 'The conversation waits for an answer; the app can call its tool once it was given.'
          : 'The conversation is busy; the app can call its tool once the answer ended.',
      );
    }
    this.#following.stop();
    if (this.agent.callToolFromApp === undefined) {
      return toolError(
        'tool_not_found',
        "This agent runs on a server: an app view's tool calls are made where its MCP servers are.",
      );
    }
    let call: AppToolCallHandle;
    try {
      call = this.agent.callToolFromApp({ ...input, threadId: this.getSnapshot().threadId });
    } catch (error) {
      return toolError('run_in_progress', messageOf(error));
    }
    // Shown as stored rows show it: in the assistant message before it. A refused call (nothing
    // stored) is the view's error, not the chat's: the thread is read again instead.
    const streamed = this.#stream(call, {}, () => true);
    const output = await call.output(options);
    await streamed;
    return output;
  }

  /**
   * Keeps model context an MCP Apps view of this thread sent (`ui/update-model-context`,
   * `Agent.updateModelContextFromApp`): the model reads it on its next turn, labelled as coming
   * from the view; the chat does not show it as a message.
   */
  async updateModelContextFromApp(
    input: Omit<AppModelContextInput, 'threadId'>,
  ): Promise<'stored' | 'held'> {
    if (this.agent.updateModelContextFromApp === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        "This agent runs on a server: an app view's model context is kept where its MCP servers are.",
      );
    }
    return await this.agent.updateModelContextFromApp({
      ...input,
      threadId: this.getSnapshot().threadId,
    });
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
    const found = this.agent.mcpServers?.find((candidate) => candidate.name === server);
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
    const interrupt = this.getSnapshot().interrupts.find((held) => held.callId === callId);
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

  // The MCP servers' sign-in state and another client's run are watched only while somebody
  // looks (a closed view costs nothing), and again from the next subscriber on.
  protected override onFirstSubscribe(): void {
    this.#unwatchServers = watchMcpServers(this.agent, () =>
      this.set((snapshot) => {
        const next = withServersNeedingAuth(snapshot, serversNeedingAuth(this.agent));
        // A server's tool list arrived after a reload: its stored calls show it now.
        const messages = fillServers(next.messages, serverOfCall(this.agent));
        return messages === next.messages ? next : { ...next, messages };
      }),
    );
    if (this.getSnapshot().status === 'running-elsewhere') this.#follow();
  }

  protected override onLastUnsubscribe(): void {
    this.#unwatchServers?.();
    this.#unwatchServers = undefined;
    this.#following.stop();
  }

  /**
   * Streams `run` into the snapshot, starting from `start` (the messages or interrupts the new
   * run begins with). `elsewhere` is given for a resume: a failure for which it is true means
   * another client answered first — not shown as an error; the thread is read again.
   */
  async #stream(
    run: RunHandle,
    start: Partial<Pick<ChatSnapshot, 'messages' | 'interrupts'>>,
    elsewhere?: (error: SwitchboardError) => boolean,
  ): Promise<RunResult> {
    this.#run = run;
    this.set((snapshot) => ({ ...withoutError(snapshot), ...start, status: 'streaming' }));
    // A resumed run continues the paused run's assistant message, as the stored thread shows it
    // (so a tab that followed the run from history shows the same messages).
    const last = this.getSnapshot().messages.at(-1);
    const resumed = elsewhere !== undefined && last?.role === 'assistant';
    const assistantId = resumed ? last.id : crypto.randomUUID();
    const fold = (snapshot: ChatSnapshot, chunk: Chunk): ChatSnapshot => {
      const messages = applyChunk(snapshot.messages, chunk, assistantId);
      const interrupts = chunk.type === 'run.paused' ? chunk.interrupts : snapshot.interrupts;
      const modelRetry = nextModelRetry(snapshot.modelRetry, chunk, Date.now());
      const changed = messages !== snapshot.messages || interrupts !== snapshot.interrupts;
      const next = changed ? { ...snapshot, messages, interrupts } : snapshot;
      const modelWaiting = nextModelWaiting(chunk, Date.now());
      return withModelWaiting(withModelRetry(next, modelRetry), modelWaiting);
    };
    // One snapshot per batch, not one per delta, each run of deltas in it folded as one. A batch
    // of deltas waits for the end of its task (one snapshot per task of the stream) or, with
    // `holdDeltas`, for the UI's next render (one snapshot per frame, folded synchronously just
    // before it, and no hop per task); anything else folds them first.
    const foldBatch = (chunks: readonly Chunk[]): void => {
      if (chunks.length > 0) this.set((snapshot) => joinDeltas(chunks).reduce(fold, snapshot));
    };
    const hold = this.#holdDeltas;
    /** While a fold is asked for and not done yet: the readers' hand-outs it ends. */
    let waitingForFold: (() => void)[] | undefined;
    const untilFolded = (handOut: () => void): void => {
      if (waitingForFold !== undefined) {
        waitingForFold.push(handOut);
        return;
      }
      waitingForFold = [handOut];
      // Asked from inside the run's push, where no fold may run: so from a microtask (a store
      // without subscribers folds at once).
      queueMicrotask(() =>
        hold?.(() => {
          const handOuts = waitingForFold ?? [];
          waitingForFold = undefined;
          foldBatch(batches.takeBuffered());
          for (const handOutNow of handOuts) handOutNow();
        }),
      );
    };
    const batches = chunkBatches(run.chunks, hold === undefined ? undefined : untilFolded);
    try {
      for (let batch = await batches.next(); batch !== undefined; batch = await batches.next()) {
        foldBatch(batch);
      }
      batches.rethrow();
    } finally {
      foldBatch(batches.takeBuffered());
    }
    this.#run = undefined;
    // A run that ended without a terminal chunk (it always has one) leaves no retry shown.
    this.set((snapshot) => withModelWaiting(withModelRetry(snapshot, undefined), undefined));
    const result = await run.result();
    const failed = result.status === 'failed' ? result.error : undefined;
    if (failed !== undefined && elsewhere?.(failed) === true) await this.#reload();
    else {
      // The messages the run added (its answer) now name it, as loaded ones do.
      const messages = withRunId(this.getSnapshot().messages, run.runId);
      this.#patch({ ...endedView(result), messages });
    }
    const queued = this.#queued.shift();
    const held = this.getSnapshot().interrupts;
    if (queued !== undefined && held.some((interrupt) => interrupt.callId === queued.callId)) {
      return (await this.resolve(queued.callId, queued.action, queued.content)) ?? result;
    }
    return result;
  }

  /** Reads the thread again and shows it (following a run another client runs). */
  async #reload(): Promise<void> {
    try {
      this.#showRows(await this.#loadRows());
      if (this.getSnapshot().status === 'running-elsewhere') this.#follow();
    } catch (error) {
      this.#patch({ status: 'error', error: asLoadError(error), interrupts: [] });
      return;
    }
    this.#resumeLeftTasks();
  }

  /** Shows the stored `runs`; see {@link storedView}. */
  #showRows(runs: readonly RunRecord[], followed = false): void {
    const key = rowsKey(runs);
    if (key === this.#shownRows && this.getSnapshot().status === 'running-elsewhere') return;
    this.#shownRows = key;
    const view = storedView(runs, followed, serverOfCall(this.agent), this.#selection);
    this.set((snapshot) => ({ ...withoutError(snapshot), ...view }));
  }

  /** The thread's rows (see `Agent.loadThread`), and its selected branch into `#selection`. */
  async #loadRows(signal?: AbortSignal): Promise<RunRecord[]> {
    const threadId = this.getSnapshot().threadId;
    const options = signal === undefined ? {} : { signal };
    const [runs, selection] = await Promise.all([
      this.agent.loadThread(threadId, options),
      this.agent.history.loadBranchSelection(threadId, options),
    ]);
    this.#selection = selection;
    return runs;
  }

  /** Starts following the thread's run of another client, unless already following. */
  #follow(): void {
    if (this.#run !== undefined) return;
    this.#following.start(
      {
        load: (signal) => this.agent.loadThread(this.getSnapshot().threadId, { signal }),
        onRows: (runs) => {
          this.#showRows(runs, true);
          // The followed run's page closed and its run was recovered on tasks: take it over.
          if (this.getSnapshot().status !== 'running-elsewhere') this.#resumeLeftTasks();
        },
      },
      (error) => this.#patch({ status: 'error', error: asLoadError(error), interrupts: [] }),
    );
  }

  #patch(change: Partial<ChatSnapshot>): void {
    this.set((snapshot) => ({ ...snapshot, ...change }));
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

function asLoadError(error: unknown): SwitchboardError {
  return new SwitchboardError('history_error', 'Could not load the thread.', { cause: error });
}

/** How a file being sent shows before the stored thread is read: its own bytes. */
function sendingAttachmentPart(input: AttachmentInput): ChatAttachmentPart {
  const { bytes, name, mimeType } = attachmentFile(input);
  return { type: 'attachment', name, mimeType, size: bytes.size, bytes };
}
