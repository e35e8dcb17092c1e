import type { ChatBranch, ChatMessage } from '@switchboard/core';
import { useState, type FormEvent, type KeyboardEvent } from 'react';

/** What a message's branch controls call (`useAgent`'s edit, regenerate and switchBranch). */
export interface BranchActions {
  edit(runId: string, text: string): void;
  regenerate(runId: string): void;
  switchBranch(runId: string): void;
  /** A run streams (here or in another tab): the controls are disabled meanwhile. */
  busy: boolean;
}

/**
 * Under a message: for a user message, Edit (an inline form: Save sends the edited text on a new
 * branch, Escape or Cancel leaves it) and ‹ n / m › between its versions; for an answer,
 * Regenerate (docs/conversations.md, "Branches").
 */
export function MessageActions({
  message,
  actions,
}: {
  message: ChatMessage;
  actions: BranchActions;
}) {
  const { runId, branch } = message;
  const [editing, setEditing] = useState<string | undefined>();
  if (runId === undefined) return null;
  if (message.role === 'assistant') {
    return (
      <div className="message__actions">
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="regenerate"
          aria-label="Regenerate this answer"
          disabled={actions.busy}
          onClick={() => actions.regenerate(runId)}
        >
          Regenerate
        </button>
      </div>
    );
  }
  if (message.role !== 'user') return null;
  const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const edited = (editing ?? '').trim();
    if (edited === '' || actions.busy) return;
    setEditing(undefined);
    actions.edit(runId, edited);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      setEditing(undefined);
    }
  };
  return (
    <div className="message__actions">
      {editing === undefined ? (
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="edit-message"
          aria-label="Edit this message"
          disabled={actions.busy}
          onClick={() => setEditing(text)}
        >
          Edit
        </button>
      ) : (
        <form className="message__edit" data-testid="edit-form" onSubmit={save}>
          <textarea
            aria-label="Edited message"
            value={editing}
            rows={2}
            // The form opens on a click on Edit: the text is what the user wants to change.
            autoFocus
            onChange={(event) => setEditing(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <button type="submit" className="button button--small" disabled={actions.busy}>
            Save and send
          </button>
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() => setEditing(undefined)}
          >
            Cancel
          </button>
        </form>
      )}
      {branch !== undefined && branch.count > 1 && (
        <BranchPager branch={branch} busy={actions.busy} onSwitch={actions.switchBranch} />
      )}
    </div>
  );
}

/** ‹ n / m ›: the versions of a message (its run's siblings), oldest first. */
function BranchPager({
  branch,
  busy,
  onSwitch,
}: {
  branch: ChatBranch;
  busy: boolean;
  onSwitch: (runId: string) => void;
}) {
  const previous = branch.siblings[branch.index - 1];
  const next = branch.siblings[branch.index + 1];
  return (
    <div className="branch-pager" role="group" aria-label="Versions of this message">
      <button
        type="button"
        className="button button--secondary button--small"
        aria-label="Previous version"
        data-testid="branch-previous"
        disabled={busy || previous === undefined}
        onClick={() => previous !== undefined && onSwitch(previous)}
      >
        ‹
      </button>
      <span className="branch-pager__position" data-testid="branch-position">
        {branch.index + 1} / {branch.count}
      </span>
      <button
        type="button"
        className="button button--secondary button--small"
        aria-label="Next version"
        data-testid="branch-next"
        disabled={busy || next === undefined}
        onClick={() => next !== undefined && onSwitch(next)}
      >
        ›
      </button>
    </div>
  );
}
