import type { McpServerSnapshot, McpServerStatus, SwitchboardError } from '@switchboard/core';
import { useId, useState, type FormEvent } from 'react';

/**
 * The MCP server: its URL (editable), connection status and protocol, and the tools it lists.
 * Everything the server sends is rendered as text.
 */
export function ServerPanel({
  url,
  snapshot,
  listError,
  onConnect,
}: {
  url: string;
  snapshot: McpServerSnapshot;
  listError: SwitchboardError | undefined;
  /** Connects to the URL; throws for a URL that is not http(s). */
  onConnect: (url: string) => void;
}) {
  const [draftUrl, setDraftUrl] = useState(url);
  const [urlProblem, setUrlProblem] = useState<string | undefined>();
  const id = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    try {
      onConnect(draftUrl);
      setUrlProblem(undefined);
    } catch (error) {
      setUrlProblem(error instanceof Error ? error.message : String(error));
    }
  };
  const tools = snapshot.tools ?? [];
  const busy = snapshot.status === 'connecting';

  return (
    <aside className="server-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>MCP server</h2>
      <form className="server-form" onSubmit={submit}>
        <label className="field">
          <span className="field__label">Server URL (Streamable HTTP)</span>
          <input
            type="url"
            value={draftUrl}
            spellCheck={false}
            autoComplete="off"
            data-testid="server-url-input"
            onChange={(event) => setDraftUrl(event.target.value)}
          />
        </label>
        <button type="submit" className="button" data-testid="server-connect">
          {busy ? 'Connecting…' : 'Connect'}
        </button>
      </form>
      {urlProblem !== undefined && (
        <p className="server-panel__problem" role="alert">
          {urlProblem}
        </p>
      )}
      <ServerStatus snapshot={snapshot} />
      {listError !== undefined && (
        <div className="error-box" role="alert">
          <strong>Could not list the tools</strong> <code>{listError.code}</code>
          <p>{listError.message}</p>
        </div>
      )}
      <h3 className="server-panel__tools-title">
        Tools{snapshot.status === 'connected' && snapshot.tools ? ` (${tools.length})` : ''}
      </h3>
      {tools.length === 0 ? (
        <p className="muted">
          {snapshot.status === 'error'
            ? 'No tools: the server is not connected. The chat works without them.'
            : 'No tools listed yet.'}
        </p>
      ) : (
        <ul className="tool-list" data-testid="tool-list">
          {tools.map((tool) => (
            <li key={tool.name} className="tool-list__item" data-testid="tool-item">
              <code className="tool-list__name">{tool.name}</code>
              {tool.description !== '' && (
                <p className="tool-list__description">{tool.description}</p>
              )}
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

function ServerStatus({ snapshot }: { snapshot: McpServerSnapshot }) {
  if (snapshot.status === 'error') {
    return (
      <div
        className="server-status server-status--error error-box"
        role="alert"
        data-testid="server-status"
        data-status="error"
      >
        <strong>Not connected</strong>{' '}
        {snapshot.error !== undefined && (
          <code data-testid="server-error-code">{snapshot.error.code}</code>
        )}
        <p data-testid="server-error-message">
          {snapshot.error?.message ?? 'The connection failed.'}
        </p>
      </div>
    );
  }
  return (
    <div
      className={`server-status server-status--${snapshot.status}`}
      data-testid="server-status"
      data-status={snapshot.status}
      role="status"
    >
      <span className="status-dot" aria-hidden="true" />
      {snapshot.status === 'connected' ? (
        <span>
          <strong>Connected</strong>
          {snapshot.serverInfo !== undefined && (
            <>
              {' '}
              to {snapshot.serverInfo.name} {snapshot.serverInfo.version}
            </>
          )}
          <span className="server-status__protocol" data-testid="server-protocol">
            {describeProtocol(snapshot)}
          </span>
        </span>
      ) : (
        <strong>{statusLabels[snapshot.status]}</strong>
      )}
    </div>
  );
}

const statusLabels: Record<Exclude<McpServerStatus, 'error'>, string> = {
  idle: 'Not connected yet',
  connecting: 'Connecting…',
  cached: 'Tools from the cache; not connected yet',
  connected: 'Connected',
  closed: 'Closed',
};

const transportLabels: Record<NonNullable<McpServerSnapshot['transport']>, string> = {
  'streamable-http': 'Streamable HTTP',
  sse: 'legacy SSE',
  custom: 'custom transport',
};

function describeProtocol(snapshot: McpServerSnapshot): string {
  const era =
    snapshot.protocolEra === 'modern'
      ? 'modern era (stateless)'
      : snapshot.protocolEra === 'legacy'
        ? 'legacy era (initialize)'
        : 'unknown era';
  const transport =
    snapshot.transport === undefined ? '' : `, ${transportLabels[snapshot.transport]}`;
  return `Protocol ${snapshot.protocolVersion ?? 'unknown'}, ${era}${transport}`;
}
