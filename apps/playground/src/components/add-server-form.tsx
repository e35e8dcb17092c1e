import type { McpTransportKind } from '@switchboard/core';
import { useId, useState, type FormEvent } from 'react';
import {
  serverFromDraft,
  validateServerDraft,
  type HeaderEntry,
  type ProtocolHint,
  type ServerConfig,
  type ServerDraft,
} from '../server-config.ts';
import { closeOnEscape } from '../close-on-escape.ts';

const emptyDraft: ServerDraft = {
  name: '',
  url: '',
  transport: 'auto',
  protocol: 'detect',
  toolPrefix: '',
  headers: [],
  oauth: false,
};

/**
 * Adds an MCP server: name, URL, transport (auto / Streamable HTTP / SSE), protocol hint,
 * optional tool prefix, headers (values typed masked, and kept in this browser) and OAuth
 * sign-in. Escape (or Cancel) closes it.
 */
export function AddServerForm({
  existing,
  onAdd,
  onCancel,
}: {
  existing: readonly ServerConfig[];
  onAdd: (server: ServerConfig) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<ServerDraft>(emptyDraft);
  const [problem, setProblem] = useState<string | undefined>();
  const id = useId();
  const change = (patch: Partial<ServerDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const changeHeader = (index: number, patch: Partial<HeaderEntry>) =>
    change({
      headers: draft.headers.map((header, at) => (at === index ? { ...header, ...patch } : header)),
    });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const invalid = validateServerDraft(draft, existing);
    if (invalid !== undefined) {
      setProblem(invalid);
      return;
    }
    onAdd(serverFromDraft(draft));
  };

  return (
    <form
      className="add-server"
      aria-labelledby={`${id}-title`}
      data-testid="add-server-form"
      onSubmit={submit}
      onKeyDown={closeOnEscape(onCancel)}
      noValidate
    >
      <h3 id={`${id}-title`}>Add an MCP server</h3>
      <div className="form-grid">
        <label className="field">
          <span className="field__label">Name</span>
          <input
            type="text"
            value={draft.name}
            placeholder="my-server"
            autoComplete="off"
            spellCheck={false}
            data-testid="add-server-name"
            onChange={(event) => change({ name: event.target.value })}
          />
        </label>
        <label className="field field--wide">
          <span className="field__label">URL</span>
          <input
            type="url"
            value={draft.url}
            placeholder="http://127.0.0.1:3001/mcp"
            autoComplete="off"
            spellCheck={false}
            data-testid="add-server-url"
            onChange={(event) => change({ url: event.target.value })}
          />
        </label>
        <label className="field">
          <span className="field__label">Transport</span>
          <select
            value={draft.transport}
            data-testid="add-server-transport"
            onChange={(event) => change({ transport: event.target.value as McpTransportKind })}
          >
            <option value="auto">Auto (Streamable HTTP, then SSE)</option>
            <option value="streamable-http">Streamable HTTP</option>
            <option value="sse">SSE (legacy HTTP+SSE)</option>
          </select>
        </label>
        <label className="field">
          <span className="field__label">Protocol</span>
          <select
            value={draft.protocol}
            data-testid="add-server-protocol"
            onChange={(event) => change({ protocol: event.target.value as ProtocolHint })}
          >
            <option value="detect">Detect (probe for 2026-07-28)</option>
            <option value="2025">2025 era (skip the probe)</option>
          </select>
        </label>
        <label className="field">
          <span className="field__label">Tool prefix (optional)</span>
          <input
            type="text"
            value={draft.toolPrefix}
            placeholder="e.g. mine_"
            autoComplete="off"
            spellCheck={false}
            data-testid="add-server-prefix"
            onChange={(event) => change({ toolPrefix: event.target.value })}
          />
        </label>
      </div>
      <p className="field__hint">
        A prefix keeps tool names apart when two servers have tools with the same name.
      </p>
      <label className="toggle add-server__oauth">
        <input
          type="checkbox"
          checked={draft.oauth}
          data-testid="add-server-oauth"
          aria-describedby={`${id}-oauth-hint`}
          onChange={(event) => change({ oauth: event.target.checked })}
        />
        Sign in with OAuth
      </label>
      <p className="field__hint" id={`${id}-oauth-hint`}>
        For servers that ask you to sign in (HTTP 401): the server card offers Connect, which opens
        the server&apos;s sign-in page in a popup. Tokens stay in this browser (IndexedDB) and go
        only to this server.
      </p>
      <fieldset className="headers-fieldset">
        <legend>Headers</legend>
        {draft.headers.map((header, index) => (
          <div className="header-row" key={index}>
            <input
              type="text"
              value={header.name}
              placeholder="Authorization"
              aria-label={`Header ${index + 1} name`}
              autoComplete="off"
              spellCheck={false}
              data-testid="add-server-header-name"
              onChange={(event) => changeHeader(index, { name: event.target.value })}
            />
            <input
              type="password"
              value={header.value}
              placeholder="Bearer …"
              aria-label={`Header ${index + 1} value`}
              autoComplete="off"
              data-testid="add-server-header-value"
              onChange={(event) => changeHeader(index, { value: event.target.value })}
            />
            <button
              type="button"
              className="link-button link-button--danger"
              aria-label={`Remove header ${index + 1}`}
              onClick={() => change({ headers: draft.headers.filter((_, at) => at !== index) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          className="link-button"
          data-testid="add-server-add-header"
          onClick={() => change({ headers: [...draft.headers, { name: '', value: '' }] })}
        >
          Add a header
        </button>
        <p className="note" data-testid="headers-note">
          Header values stay in this browser: they are saved in localStorage (not encrypted) and
          sent with every request to this server, and nowhere else.
        </p>
      </fieldset>
      {problem !== undefined && (
        <p className="problem" role="alert" data-testid="add-server-problem">
          {problem}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button" data-testid="add-server-submit">
          Add server
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
