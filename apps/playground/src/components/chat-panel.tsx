import {
  elicitationDraftKey,
  ErrorNotice,
  InterruptView,
  type UseAgentResult,
} from '@switchboard/react';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { AcceptedAttachment, McpServer, MessageResourcePart } from '@switchboard/core';
import { ChatMessageView } from './chat-message-view.tsx';
import type { BranchActions } from './message-actions.tsx';
import { ComposerFileList, useComposerFiles } from './composer-files.tsx';
import { ModelRetryNotice } from './model-retry-notice.tsx';
import { ModelWaitingNotice } from './model-waiting-notice.tsx';
import { PromptMenu } from './prompt-menu.tsx';
import { describeSignInFailure } from '../sign-in-failure.ts';

/** A phrase the scripted model understands, and the feature it shows. */
export interface Suggestion {
  text: string;
  shows: string;
}

/**
 * The phrases of the scripted model's default script (packages/fixtures/src/model-script.ts)
 * and what each one shows in the playground. A real model understands them too.
 */
export const suggestions: readonly Suggestion[] = [
  { text: 'what is 2 plus 3?', shows: 'a tool call (everything server)' },
  { text: 'weather in Oslo', shows: 'structured content' },
  { text: 'count to 5 slowly', shows: 'a live progress bar' },
  { text: 'delete notes.txt', shows: 'an approval' },
  { text: 'book a table', shows: 'a form (2026-07-28 server)' },
  { text: 'ask me for my details', shows: 'a form pushed by a 2025 server' },
  { text: 'connect my calendar', shows: 'URL consent' },
  { text: 'find a tool for invoices', shows: 'a deferred tool via tool_search' },
  { text: 'show me an image', shows: 'an image result' },
  { text: 'simulate a rate limit', shows: 'a model retry after HTTP 429' },
];

/**
 * The conversation, the calls waiting for the human (approval, form, URL, sign-in), a "Connect"
 * banner per server that needs a sign-in, the error of the last run (if any) and the message
 * composer with Send and Stop.
 */
export function ChatPanel({
  chat,
  notices,
  onNewChat,
  className,
  servers = [],
  attachments = [],
  onAttachmentsSent,
  acceptedAttachments,
}: {
  chat: UseAgentResult;
  /** The files the agent takes (`Agent.acceptedAttachments`); absent: not known here. */
  acceptedAttachments?: readonly AcceptedAttachment[] | undefined;
  /** The servers whose prompts the "/" menu offers. */
  servers?: readonly McpServer[];
  /** Resources attached to the next message (from the resource browser). */
  attachments?: readonly MessageResourcePart[];
  /** The attachments went out with a message (or were removed). */
  onAttachmentsSent?: () => void;
  /** Why some servers' tools are not offered to the model (shown above the composer). */
  notices: readonly string[];
  onNewChat: () => void;
  className?: string;
}) {
  const {
    messages,
    status,
    error,
    send,
    stop,
    interrupts,
    resolve,
    serversNeedingAuth,
    connect,
    authorizeAndResume,
    threadId,
    modelRetry,
    modelWaiting,
    edit,
    regenerate,
    switchBranch,
    readAttachment,
  } = chat;
  const [draft, setDraft] = useState('');
  const files = useComposerFiles();
  // What `send` threw (the failure itself: `<ErrorNotice>` describes it).
  const [sendProblem, setSendProblem] = useState<{ failure: unknown } | undefined>();
  const listEnd = useRef<HTMLDivElement>(null);
  const streaming = status === 'streaming';
  // Another tab (or client) runs this thread: it would refuse a new message until that run ends.
  const elsewhere = status === 'running-elsewhere';
  const busy = streaming || elsewhere;
  const lastMessage = messages.at(-1);

  useEffect(() => {
    listEnd.current?.scrollIntoView({ block: 'end' });
  }, [messages, interrupts]);

  const submit = (text: string) => {
    const trimmed = text.trim();
    if ((trimmed === '' && files.files.length === 0) || busy) return;
    setDraft('');
    setSendProblem(undefined);
    const resources = [...attachments];
    onAttachmentsSent?.();
    const sending = files.take();
    send(trimmed, {
      ...(resources.length === 0 ? {} : { resources }),
      ...(sending.length === 0 ? {} : { attachments: sending }),
    }).catch((failure: unknown) => {
      setSendProblem({ failure });
      // Nothing was sent (a refused file, a run in progress): give the message back.
      files.add(sending);
      setDraft((current) => (current === '' ? text : current));
    });
  };
  const failed = (failure: unknown) => setSendProblem({ failure });
  const branchActions: BranchActions = {
    edit: (runId, text) => {
      setSendProblem(undefined);
      edit(runId, text).catch(failed);
    },
    regenerate: (runId) => {
      setSendProblem(undefined);
      regenerate(runId).catch(failed);
    },
    switchBranch: (runId) => {
      switchBranch(runId).catch(failed);
    },
    busy,
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit(draft);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit(draft);
    }
  };

  return (
    <section
      className={`chat panel ${className ?? ''}`}
      aria-label="Chat"
      data-testid="chat"
      data-status={status}
    >
      <div className="panel__toolbar">
        <h2>Chat</h2>
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="new-chat"
          onClick={onNewChat}
          disabled={streaming || messages.length === 0}
        >
          New chat
        </button>
      </div>
      <div className="chat__scroll">
        {status === 'loading' ? (
          <p className="muted">Loading the conversation…</p>
        ) : messages.length === 0 ? (
          <div className="chat__empty">
            <p>
              Ask the agent something: it calls the tools of the servers on the right. The scripted
              model (offline) understands these; each shows a feature:
            </p>
            <ul className="suggestion-grid">
              {suggestions.map((suggestion) => (
                <li key={suggestion.text}>
                  <button
                    type="button"
                    className="suggestion suggestion--large"
                    disabled={busy}
                    onClick={() => submit(suggestion.text)}
                  >
                    <span className="suggestion__text">{suggestion.text}</span>
                    <span className="suggestion__shows">{suggestion.shows}</span>
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <ol className="message-list" data-testid="message-list">
            {messages.map((message) => (
              <ChatMessageView
                key={message.id}
                message={message}
                actions={branchActions}
                readAttachment={readAttachment}
              />
            ))}
          </ol>
        )}
        {elsewhere && (
          <p className="chat__thinking" role="status" data-testid="chat-running-elsewhere">
            Running in another tab… this conversation updates here when that run ends (or at once
            when that tab closes).
          </p>
        )}
        {streaming && modelRetry !== undefined ? (
          <ModelRetryNotice key={modelRetry.retryAt} retry={modelRetry} />
        ) : streaming && modelWaiting !== undefined ? (
          <ModelWaitingNotice key={modelWaiting.since} waiting={modelWaiting} />
        ) : (
          streaming &&
          lastMessage?.role !== 'assistant' && (
            <p className="chat__thinking" data-testid="chat-thinking">
              Thinking…
            </p>
          )
        )}
        {interrupts.length > 0 && (
          <section className="interrupts" aria-label="Waiting for you" data-testid="interrupts">
            <h3 className="interrupts__title">Waiting for you</h3>
            {interrupts.map((interrupt) => (
              <div
                key={interrupt.callId}
                className="interrupt"
                data-testid="interrupt"
                data-mode={interrupt.mode}
              >
                <InterruptView
                  interrupt={interrupt}
                  onResolve={(action, content) => resolve(interrupt.callId, action, content)}
                  onAuthorize={() => authorizeAndResume(interrupt.callId)}
                  draftKey={elicitationDraftKey(threadId, interrupt.callId)}
                />
              </div>
            ))}
          </section>
        )}
        <div ref={listEnd} />
      </div>
      {error !== undefined && (
        <ErrorNotice
          error={error}
          title="The run failed"
          className="chat__error"
          data-testid="chat-error"
        />
      )}
      {sendProblem !== undefined && (
        <ErrorNotice
          error={sendProblem.failure}
          title="Not sent"
          className="chat__error"
          data-testid="chat-send-error"
        />
      )}
      {serversNeedingAuth.length > 0 && (
        <ul className="auth-banners" aria-label="Servers waiting for you to sign in">
          {serversNeedingAuth.map((server) => (
            <AuthBanner key={server} server={server} connect={connect} />
          ))}
        </ul>
      )}
      {notices.length > 0 && (
        <ul className="chat__notices" data-testid="chat-notices">
          {notices.map((notice) => (
            <li key={notice}>{notice}</li>
          ))}
        </ul>
      )}
      {messages.length > 0 && (
        <ul className="suggestion-row" aria-label="Suggestions">
          {suggestions.map((suggestion) => (
            <li key={suggestion.text}>
              <button
                type="button"
                className="suggestion"
                title={`Shows ${suggestion.shows}`}
                disabled={busy}
                onClick={() => submit(suggestion.text)}
              >
                {suggestion.text}
              </button>
            </li>
          ))}
        </ul>
      )}
      {draft.startsWith('/') && servers.length > 0 && (
        <PromptMenu
          servers={servers}
          query={draft.slice(1).split(/\s/)[0] ?? ''}
          onUse={(text) => setDraft(text)}
        />
      )}
      {attachments.length > 0 && (
        <p className="chat__attachments" data-testid="chat-attachments">
          📎 {attachments.map((part) => part.title ?? part.uri).join(', ')}{' '}
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={onAttachmentsSent}
          >
            Remove
          </button>
        </p>
      )}
      <form
        className="composer"
        onSubmit={onSubmit}
        onDragOver={files.onDragOver}
        onDrop={files.onDrop}
      >
        <textarea
          className="composer__input"
          aria-label="Message"
          aria-describedby="composer-hint"
          placeholder="Message the agent…"
          rows={2}
          value={draft}
          data-testid="chat-input"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={files.onPaste}
        />
        <span id="composer-hint" className="visually-hidden">
          Enter sends, Shift+Enter starts a new line. Paste or drop files to attach them.
        </span>
        <div className="composer__actions">
          {streaming && (
            <button
              type="button"
              className="button button--danger"
              data-testid="stop-button"
              onClick={stop}
            >
              Stop
            </button>
          )}
          <button
            type="submit"
            className="button"
            data-testid="send-button"
            disabled={busy || (draft.trim() === '' && files.files.length === 0)}
          >
            Send
          </button>
        </div>
        <ComposerFileList files={files} accepted={acceptedAttachments} />
      </form>
    </section>
  );
}

/**
 * "<server> needs you to sign in — [Connect]": the chat goes on without the server's tools
 * until then. Connect signs in (a popup, straight from the click; a blocked popup becomes a
 * full-page redirect); a failure (popup closed, access denied) is shown, and Connect stays.
 */
function AuthBanner({ server, connect }: { server: string; connect: UseAgentResult['connect'] }) {
  const [phase, setPhase] = useState<'idle' | 'signing-in' | 'redirecting'>('idle');
  const [failure, setFailure] = useState<string | undefined>();
  const onConnect = () => {
    setFailure(undefined);
    setPhase('signing-in');
    connect(server).then(
      (outcome) => setPhase(outcome === 'redirected' ? 'redirecting' : 'idle'),
      (error: unknown) => {
        setPhase('idle');
        setFailure(describeSignInFailure(error));
      },
    );
  };
  return (
    <li className="auth-banner" data-testid="auth-banner" data-server={server}>
      <span>
        <strong>{server}</strong> needs you to sign in; the chat goes on without its tools until
        then.
      </span>
      {phase === 'redirecting' ? (
        <span>Taking you to the sign-in page…</span>
      ) : (
        <button
          type="button"
          className="button button--small"
          data-testid="auth-banner-connect"
          disabled={phase !== 'idle'}
          onClick={onConnect}
        >
          {phase === 'signing-in' ? 'Waiting for sign-in…' : 'Connect'}
        </button>
      )}
      {failure !== undefined && (
        <span className="auth-banner__failure" role="alert" data-testid="auth-banner-failure">
          {failure}
        </span>
      )}
    </li>
  );
}
