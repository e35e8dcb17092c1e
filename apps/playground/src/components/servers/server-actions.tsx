import { useState } from 'react';
import type { ServerConfig } from '../../server-config.ts';
import type { ServerRegistry } from '../../server-registry.ts';

/**
 * A server's buttons: Reconnect, always there — an error anywhere (a tool call in the chat, the
 * tool runner) may say "then reconnect" while this card still shows the last good state — and
 * the first button after a failure; Refresh tools unless the server failed; and Remove, which
 * asks once more before it removes.
 */
export function ServerActions({
  config,
  registry,
  failed,
  connecting,
}: {
  config: ServerConfig;
  registry: ServerRegistry;
  /** The server could not be used (a failure that is not a request to sign in). */
  failed: boolean;
  connecting: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const run = (action: () => Promise<void>) => {
    setBusy(true);
    void action().finally(() => setBusy(false));
  };

  return (
    <div className="server-card__actions">
      <button
        type="button"
        className={failed ? 'button button--small' : 'button button--secondary button--small'}
        data-testid="server-reconnect"
        disabled={busy || connecting}
        title="End the session and connect again"
        onClick={() => run(() => registry.reconnect(config.id))}
      >
        Reconnect
      </button>
      {!failed && (
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="server-refresh"
          disabled={busy || connecting}
          title="Forget the cached tool list and list the tools again"
          onClick={() => run(() => registry.refresh(config.id))}
        >
          Refresh tools
        </button>
      )}
      {confirmRemove ? (
        <>
          <button
            type="button"
            className="button button--danger button--small"
            data-testid="server-remove-confirm"
            onClick={() => registry.remove(config.id)}
          >
            Remove {config.name}
          </button>
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() => setConfirmRemove(false)}
          >
            Keep
          </button>
        </>
      ) : (
        <button
          type="button"
          className="button button--secondary button--small"
          data-testid="server-remove"
          onClick={() => setConfirmRemove(true)}
        >
          Remove
        </button>
      )}
    </div>
  );
}
