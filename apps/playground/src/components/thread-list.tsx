import type { AgentThreads, ThreadSummary } from '@switchboard/core';
import { ErrorNotice, useThreads } from '@switchboard/react';
import { useState, type FormEvent } from 'react';

/**
 * The threads kept in this browser (IndexedDB), most recent first: open, rename, delete, new.
 * The open thread is highlighted; titles are the first message unless renamed.
 */
export function ThreadList({
  history,
  openThreadId,
  busy,
  onOpen,
  onNew,
  onDeleted,
  className,
}: {
  history: AgentThreads;
  openThreadId: string;
  /** True while the open thread's run streams (switching would stop it). */
  busy: boolean;
  onOpen: (threadId: string) => void;
  onNew: () => void;
  /** Called after a thread was deleted (the app opens a new one if it was the open thread). */
  onDeleted: (threadId: string) => void;
  className?: string;
}) {
  const threads = useThreads(history);
  // What failed ("Could not delete the thread") and the error, for an `<ErrorNotice>`.
  const [problem, setProblem] = useState<{ title: string; error: unknown } | undefined>();

  const act = async (action: () => Promise<void>, failure: string) => {
    setProblem(undefined);
    try {
      await action();
    } catch (error) {
      setProblem({ title: failure, error });
    }
    await threads.invalidate();
  };

  return (
    <section
      className={`panel thread-panel ${className ?? ''}`}
      aria-label="Threads"
      data-testid="threads"
    >
      <div className="panel__toolbar">
        <h2>Threads</h2>
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="new-thread"
          onClick={onNew}
        >
          New
        </button>
      </div>
      <div className="panel__body">
        <p className="panel__note">Kept in this browser (IndexedDB).</p>
        {problem !== undefined && (
          <ErrorNotice error={problem.error} title={problem.title} data-testid="threads-problem" />
        )}
        {threads.isPending ? (
          <p className="muted">Loading…</p>
        ) : threads.isError ? (
          <ErrorNotice error={threads.error} title="Could not read the threads" />
        ) : threads.data.length === 0 ? (
          <p className="muted">No threads yet: send a message.</p>
        ) : (
          <ul className="thread-list" data-testid="thread-list">
            {threads.data.map((thread) => (
              <ThreadItem
                key={thread.threadId}
                thread={thread}
                open={thread.threadId === openThreadId}
                busy={busy}
                onOpen={() => onOpen(thread.threadId)}
                onRename={(title) =>
                  act(() => history.renameThread(thread.threadId, title), 'Could not rename')
                }
                onDelete={() =>
                  act(async () => {
                    await history.deleteThread(thread.threadId);
                    onDeleted(thread.threadId);
                  }, 'Could not delete')
                }
              />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function ThreadItem({
  thread,
  open,
  busy,
  onOpen,
  onRename,
  onDelete,
}: {
  thread: ThreadSummary;
  open: boolean;
  busy: boolean;
  onOpen: () => void;
  onRename: (title: string) => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm-delete'>('view');
  const [title, setTitle] = useState(thread.title);
  const label = thread.title === '' ? 'Untitled thread' : thread.title;

  const submitRename = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = title.trim();
    if (trimmed !== '' && trimmed !== thread.title) await onRename(trimmed);
    setMode('view');
  };

  return (
    <li
      className={`thread-item${open ? ' thread-item--open' : ''}`}
      data-testid="thread-item"
      data-thread-id={thread.threadId}
      data-open={open}
    >
      {mode === 'rename' ? (
        <form className="thread-item__rename" onSubmit={(event) => void submitRename(event)}>
          <input
            type="text"
            value={title}
            aria-label="Thread title"
            data-testid="thread-title-input"
            // The user asked to rename: move focus to the field.
            autoFocus
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setMode('view');
            }}
          />
          <div className="thread-item__actions">
            <button type="submit" className="button button--small" data-testid="thread-rename-save">
              Save
            </button>
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() => setMode('view')}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <button
            type="button"
            className="thread-item__open"
            aria-current={open ? 'true' : undefined}
            data-testid="thread-open"
            disabled={busy && !open}
            onClick={onOpen}
          >
            <span className="thread-item__title" data-testid="thread-title">
              {label}
            </span>
            <time className="thread-item__time" dateTime={new Date(thread.updatedAt).toISOString()}>
              {formatTime(thread.updatedAt)}
            </time>
          </button>
          {mode === 'confirm-delete' ? (
            <div className="thread-item__actions" role="group" aria-label="Delete this thread?">
              <span className="thread-item__question">Delete?</span>
              <button
                type="button"
                className="button button--danger button--small"
                data-testid="thread-delete-confirm"
                disabled={busy && open}
                onClick={() => void onDelete()}
              >
                Delete
              </button>
              <button
                type="button"
                className="button button--secondary button--small"
                onClick={() => setMode('view')}
              >
                Keep
              </button>
            </div>
          ) : (
            <div className="thread-item__actions">
              <button
                type="button"
                className="link-button"
                aria-label={`Rename "${label}"`}
                data-testid="thread-rename"
                onClick={() => {
                  setTitle(thread.title);
                  setMode('rename');
                }}
              >
                Rename
              </button>
              <button
                type="button"
                className="link-button link-button--danger"
                aria-label={`Delete "${label}"`}
                data-testid="thread-delete"
                onClick={() => setMode('confirm-delete')}
              >
                Delete
              </button>
            </div>
          )}
        </>
      )}
    </li>
  );
}

function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}
