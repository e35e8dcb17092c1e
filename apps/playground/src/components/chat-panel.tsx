import type { UseAgentResult } from '@switchboard/react';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ChatMessageView } from './chat-message-view.tsx';

const suggestions = ['what is 2 plus 3?', 'echo hello from the playground'];

/** The conversation, the error of the last run (if any) and the message composer. */
export function ChatPanel({
  chat,
  toolsConnected,
  onNewChat,
}: {
  chat: UseAgentResult;
  toolsConnected: boolean;
  onNewChat: () => void;
}) {
  const { messages, status, error, send, stop } = chat;
  const [draft, setDraft] = useState('');
  const [sendProblem, setSendProblem] = useState<string | undefined>();
  const listEnd = useRef<HTMLDivElement>(null);
  const streaming = status === 'streaming';
  const lastMessage = messages.at(-1);

  useEffect(() => {
    listEnd.current?.scrollIntoView({ block: 'end' });
  }, [messages]);

  const submit = (text: string) => {
    const trimmed = text.trim();
    if (trimmed === '' || streaming) return;
    setDraft('');
    setSendProblem(undefined);
    send(trimmed).catch((failure: unknown) => {
      setSendProblem(failure instanceof Error ? failure.message : String(failure));
    });
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
    <section className="chat" aria-label="Chat" data-testid="chat" data-status={status}>
      <div className="chat__toolbar">
        <h2>Chat</h2>
        {!toolsConnected && (
          <span className="chat__notice">No MCP tools: the server is not connected.</span>
        )}
        <button
          type="button"
          className="button button--secondary button--small"
          onClick={onNewChat}
          disabled={streaming || messages.length === 0}
        >
          New chat
        </button>
      </div>
      <div className="chat__scroll">
        {messages.length === 0 ? (
          <div className="chat__empty">
            <p>Ask the agent something. It can call the MCP server&apos;s tools. Try:</p>
            <ul className="suggestions">
              {suggestions.map((suggestion) => (
                <li key={suggestion}>
                  <button
                    type="button"
                    className="suggestion"
                    disabled={streaming}
                    onClick={() => submit(suggestion)}
                  >
                    {suggestion}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <ol className="message-list" data-testid="message-list">
            {messages.map((message) => (
              <ChatMessageView key={message.id} message={message} />
            ))}
          </ol>
        )}
        {streaming && lastMessage?.role !== 'assistant' && (
          <p className="chat__thinking" data-testid="chat-thinking">
            Thinking…
          </p>
        )}
        <div ref={listEnd} />
      </div>
      {error !== undefined && (
        <div className="error-box chat__error" role="alert" data-testid="chat-error">
          <strong>The run failed</strong> <code>{error.code}</code>
          <p>{error.message}</p>
        </div>
      )}
      {sendProblem !== undefined && (
        <div className="error-box chat__error" role="alert" data-testid="chat-send-error">
          {sendProblem}
        </div>
      )}
      <form className="composer" onSubmit={onSubmit}>
        <textarea
          className="composer__input"
          aria-label="Message"
          placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
          rows={2}
          value={draft}
          data-testid="chat-input"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
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
            disabled={streaming || draft.trim() === ''}
          >
            Send
          </button>
        </div>
      </form>
    </section>
  );
}
