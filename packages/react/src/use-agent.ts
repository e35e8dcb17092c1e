import {
  AgentChat,
  SwitchboardError,
  type AgentEndpoint,
  type ChatMessage,
  type ChatModelRetry,
  type ChatModelWaiting,
  type ChatSendOptions,
  type ChatSnapshot,
  type ChatStatus,
  type AppModelContextInput,
  type AppToolCallInput,
  type McpAuthorizeOutcome,
  type RunResult,
  type ToolOutput,
} from '@switchboard/core';
import { useCallback, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { frameBatchedStore, type FrameBatchedStore } from './frame-batched-store.ts';
import type { Interrupt, ResolutionAction } from './interrupt-types.ts';
import { listStartedThread } from './list-started-thread.ts';
import { switchboardQueryKeys } from './query-keys.ts';
import { SwitchboardContext } from './switchboard-context.ts';
import { useResolvedQueryClient } from './use-resolved-query-client.ts';

/** Options of {@link useAgent}. */
export interface UseAgentOptions {
  /** The thread to show and continue; a new thread when absent. Changing it switches threads. */
  threadId?: string;
}

/** What {@link useAgent} returns. */
export interface UseAgentResult {
  threadId: string;
  /**
   * Messages of the selected branch of the thread, including the one streaming now (updated at
   * most once a frame). Each names its run (`runId`); a run's first message carries its
   * position among its siblings (`branch`: show `‹ index + 1 / count ›` when `count > 1`).
   */
  messages: readonly ChatMessage[];
  /**
   * `loading` (history), `streaming`, `paused` (see `interrupts`), `running-elsewhere` (another
   * tab or client runs the thread's run: the messages follow what it stores until it ends;
   * disable sending meanwhile), `error` or `idle`.
   */
  status: ChatStatus;
  /** Calls held for the human (approvals, forms, URLs), oldest first. */
  interrupts: readonly Interrupt[];
  /** The last run's error (or an invalid answer's), cleared by the next `send` or `resolve`. */
  error: SwitchboardError | undefined;
  /**
   * While the streaming run's model call is tried again (the agent's `modelRetry` policy and
   * `fallbackModels`): the model, the attempt, why, and when it starts (`retryAt`, ms since the
   * epoch), e.g. to show "Rate limited, retrying in 3 s". `undefined` otherwise; it clears at the
   * model's first output and when the run ends.
   */
  modelRetry: ChatModelRetry | undefined;
  /**
   * While the streaming run's model call has had no response headers for a few seconds (the
   * model's `waitingNoticeMs`): the `host` it waits for and `since` when (ms since the epoch),
   * e.g. to show "Waiting for a free connection to api.openai.com" instead of "Thinking…" — the
   * browser's connections to that host may all be held by other tabs. `undefined` otherwise; it
   * clears at the next chunk (the model's first output, a retry, the run's end).
   */
  modelWaiting: ChatModelWaiting | undefined;
  /**
   * Sends a user message; resolves with the run's result (never rejects for run failures).
   *
   * @param options `resources`: MCP resources attached as context (`resourceParts(...)`);
   *   `attachments`: files and images (`File`, `Blob`, bytes), stored in the history store and
   *   sent in the provider's format (see `AgentChat.send`, docs/conversations.md).
   * @throws SwitchboardError `run_in_progress` (as a rejection) while a run is streaming;
   *   `invalid_input` when an attachment is refused (too large, a type the model does not
   *   accept): nothing is sent and the thread stays as it was.
   */
  send(text: string, options?: ChatSendOptions): Promise<RunResult>;
  /**
   * The bytes of an attached file of this thread (`ChatAttachmentPart.attachmentId`), for
   * {@link AttachmentPreview}; `undefined` when they are not stored.
   */
  readAttachment(
    attachmentId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Blob | undefined>;
  /** Stops the streaming run, if any. */
  stop(): void;
  /**
   * Edits the user message of run `runId` (`message.runId`): a new branch from before it with
   * `text`; the old branch stays a sibling (docs/conversations.md, "Branches"). A pause waiting
   * on the thread is closed as unanswered, as for `send`. Resolves with the new run's result.
   *
   * @throws SwitchboardError (as a rejection) `run_in_progress` while a run streams;
   *   `invalid_input` for an unknown run or empty text.
   */
  edit(runId: string, text: string): Promise<RunResult>;
  /** Answers the user message of run `runId` again on a new branch (see {@link edit}). */
  regenerate(runId: string): Promise<RunResult>;
  /**
   * Shows the branch through run `runId` (one of `message.branch.siblings`) and remembers it in
   * the history store, so a reload shows it too.
   *
   * @throws SwitchboardError (as a rejection) `run_in_progress` while a run streams;
   *   `invalid_input` for an unknown run.
   */
  switchBranch(runId: string): Promise<void>;
  /**
   * Answers an interrupt: `approve` (with `content` for a form), `reject` or `cancel`; the paused
   * run continues. An invalid form answer keeps the interrupt and sets `error`
   * (`invalid_resolution`). Resolves with the continued run's result (`undefined` when the
   * answer was queued behind a streaming run).
   */
  resolve(
    callId: string,
    action: ResolutionAction,
    content?: Record<string, unknown>,
  ): Promise<RunResult | undefined>;
  /** `resolve(callId, 'approve')`. */
  approve(callId: string): Promise<RunResult | undefined>;
  /** `resolve(callId, 'reject')` (MCP elicitation: decline). */
  reject(callId: string): Promise<RunResult | undefined>;
  /**
   * Names of the agent's MCP servers waiting for the user to sign in (status `needs-auth`): a
   * run goes on without their tools. Offer `connect(name)`.
   */
  serversNeedingAuth: readonly string[];
  /**
   * Signs in to the agent's MCP server `server` (`McpServer.authorize()`): call it from the
   * click handler (a popup). Resolves `'authorized'`, or `'redirected'` when the popup was
   * blocked and the page is leaving for the authorization server.
   *
   * @throws SwitchboardError (as a rejection) `invalid_input` for an unknown server, or
   *   `needs_auth` when the user closed the popup or denied.
   */
  connect(server: string): Promise<McpAuthorizeOutcome>;
  /**
   * Answers an `authorization` interrupt: signs in to its server, then resumes with `approve`
   * (the call is made again). Call it from the click handler.
   */
  authorizeAndResume(callId: string): Promise<RunResult | undefined>;
  /**
   * A `tools/call` of an MCP Apps view shown in this thread (`AgentChat.callToolFromApp`):
   * recorded in the thread, held for approval like the model's calls; resolves with the output
   * for the view. `McpAppView` calls it when given this result as its `thread`.
   */
  callToolFromApp(
    input: Omit<AppToolCallInput, 'threadId'>,
    options?: { signal?: AbortSignal },
  ): Promise<ToolOutput>;
  /** Keeps a view's `ui/update-model-context` with the thread (`AgentChat.updateModelContextFromApp`). */
  updateModelContextFromApp(
    input: Omit<AppModelContextInput, 'threadId'>,
  ): Promise<'stored' | 'held'>;
}

/** Changes React must see at once; only message updates while streaming wait for a frame. */
function isUrgent(previous: ChatSnapshot, next: ChatSnapshot): boolean {
  return (
    previous.status !== next.status ||
    next.status !== 'streaming' ||
    previous.interrupts !== next.interrupts ||
    previous.error !== next.error ||
    previous.modelRetry !== next.modelRetry ||
    previous.modelWaiting !== next.modelWaiting ||
    previous.serversNeedingAuth !== next.serversNeedingAuth ||
    previous.threadId !== next.threadId
  );
}

/** The chat of one agent and thread, and the frame-batched view React reads it through. */
interface BoundChat {
  agent: AgentEndpoint;
  threadId: string | undefined;
  chat: AgentChat;
  store: FrameBatchedStore<ChatSnapshot>;
}

function bindChat(agent: AgentEndpoint, threadId: string | undefined): BoundChat {
  // The chat holds streamed deltas until the store is about to publish, so a streaming answer
  // makes one snapshot per rendered frame, not one per task of the stream. (It asks only while a
  // run streams, after `store` below exists.)
  const chat = new AgentChat(agent, {
    ...(threadId === undefined ? {} : { threadId }),
    holdDeltas: (fold) => store.beforeNextFlush(fold),
  });
  const store = frameBatchedStore(chat, { isUrgent });
  return { agent, threadId, chat, store };
}

function isAgent(value: unknown): value is AgentEndpoint {
  return typeof (value as AgentEndpoint | undefined)?.execute === 'function';
}

/**
 * Binds a thread of an agent to a component (an `Agent` in this page, or any `AgentEndpoint`:
 * `remoteAgent({ url })` for one that runs on a server) — thin `useSyncExternalStore` glue over the core
 * {@link AgentChat} store. On mount it loads the thread's history, including a paused run's
 * interrupts (a reload shows the same pending approval or form); `send` streams answers into
 * `messages`, and `resolve` / `approve` / `reject` answer interrupts.
 *
 * While a run streams, the component re-renders at most once per animation frame (store
 * notifications are coalesced with `requestAnimationFrame`, or `setTimeout(0)` without it), and
 * less often while rendering gets expensive (a render may take at most half the time; see
 * {@link frameBatchedStore}); status, interrupt and error changes render at once, so the end of
 * a run is never delayed. The chat folds the streamed text into its messages once per rendered
 * frame too, just before React reads them (`AgentChat`'s `holdDeltas`), not at every task of the
 * stream.
 * When a run ends, the thread list of {@link useThreads} is invalidated if a query client is
 * available (provider or `QueryClientProvider`); when a run of a thread the list does not show
 * yet starts, the thread is added to it at once (titled by its first message).
 *
 * Pass a stable `agent` (created once, outside render or in `useMemo`): a new agent instance or
 * a new `threadId` starts a new chat store. Without an `agent` argument the
 * {@link SwitchboardProvider}'s is used.
 *
 * @throws SwitchboardError `invalid_input` when there is no agent (argument or provider).
 */
export function useAgent(agent?: AgentEndpoint, options?: UseAgentOptions): UseAgentResult;
export function useAgent(options?: UseAgentOptions): UseAgentResult;
export function useAgent(
  first?: AgentEndpoint | UseAgentOptions,
  second?: UseAgentOptions,
): UseAgentResult {
  const explicit = isAgent(first) ? first : undefined;
  const options = (isAgent(first) ? second : (first ?? second)) ?? {};
  const contextAgent = useContext(SwitchboardContext).agent;
  const agent = explicit ?? contextAgent;
  if (agent === undefined) {
    throw new SwitchboardError(
      'invalid_input',
      'useAgent needs an agent: pass one (useAgent(agent)) or render inside <SwitchboardProvider agent={agent}>.',
    );
  }
  const { threadId } = options;
  // The chat is state, not a memo: React may drop a memo's value, and a new chat would lose the
  // streaming run. A new agent or thread replaces it during render (React's pattern for state
  // derived from changing inputs); this render already uses the new one.
  const [bound, setBound] = useState(() => bindChat(agent, threadId));
  let current = bound;
  if (bound.agent !== agent || bound.threadId !== threadId) {
    current = bindChat(agent, threadId);
    setBound(current);
  }
  const { chat, store } = current;
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);

  useEffect(() => {
    void chat.load();
    return () => chat.stop();
  }, [chat]);

  const queryClient = useResolvedQueryClient(undefined, 'useAgent', false);
  useEffect(() => {
    if (queryClient === undefined) return undefined;
    let last = chat.getSnapshot().status;
    return chat.subscribe(() => {
      const status = chat.getSnapshot().status;
      // A run of this chat, or one another tab ran that this chat followed, has ended.
      const ran = (value: string) => value === 'streaming' || value === 'running-elsewhere';
      if (status === 'streaming' && last !== 'streaming') {
        // A new thread is listed from its first message, not when its first run ends.
        const { threadId, messages } = chat.getSnapshot();
        listStartedThread(queryClient, chat.agent.history, threadId, messages);
      }
      if (ran(last) && !ran(status)) {
        void queryClient.invalidateQueries({
          queryKey: switchboardQueryKeys.threads(chat.agent.history),
        });
      }
      last = status;
    });
  }, [chat, queryClient]);

  const send = useCallback(
    (text: string, options?: ChatSendOptions) => chat.send(text, options),
    [chat],
  );
  const readAttachment = useCallback(
    (attachmentId: string, options?: { signal?: AbortSignal }) =>
      chat.readAttachment(attachmentId, options),
    [chat],
  );
  const stop = useCallback(() => chat.stop(), [chat]);
  const edit = useCallback((runId: string, text: string) => chat.edit(runId, text), [chat]);
  const regenerate = useCallback((runId: string) => chat.regenerate(runId), [chat]);
  const switchBranch = useCallback((runId: string) => chat.switchBranch(runId), [chat]);
  const resolve = useCallback(
    (callId: string, action: ResolutionAction, content?: Record<string, unknown>) =>
      chat.resolve(callId, action, content),
    [chat],
  );
  const approve = useCallback((callId: string) => chat.approve(callId), [chat]);
  const reject = useCallback((callId: string) => chat.reject(callId), [chat]);
  const connect = useCallback((server: string) => chat.connect(server), [chat]);
  const authorizeAndResume = useCallback(
    (callId: string) => chat.authorizeAndResume(callId),
    [chat],
  );
  const callToolFromApp = useCallback(
    (input: Omit<AppToolCallInput, 'threadId'>, options?: { signal?: AbortSignal }) =>
      chat.callToolFromApp(input, options),
    [chat],
  );
  const updateModelContextFromApp = useCallback(
    (input: Omit<AppModelContextInput, 'threadId'>) => chat.updateModelContextFromApp(input),
    [chat],
  );
  return {
    threadId: snapshot.threadId,
    messages: snapshot.messages,
    status: snapshot.status,
    interrupts: snapshot.interrupts,
    error: snapshot.error,
    modelRetry: snapshot.modelRetry,
    modelWaiting: snapshot.modelWaiting,
    send,
    readAttachment,
    stop,
    edit,
    regenerate,
    switchBranch,
    resolve,
    approve,
    reject,
    serversNeedingAuth: snapshot.serversNeedingAuth,
    connect,
    authorizeAndResume,
    callToolFromApp,
    updateModelContextFromApp,
  };
}
