import {
  type McpServerSnapshot,
  type McpServerStatus,
  type McpToolDescriptor,
} from '@switchboard/core';
import { useState, useSyncExternalStore } from 'react';
import type { PlaygroundConfig } from '../playground-config.ts';
import { missingBuiltIns, oauthDemoServer } from '../server-config.ts';
import type { ServerEntry, ServerRegistry } from '../server-registry.ts';
import type { TrafficLog } from '../traffic-log.ts';
import { AddServerForm } from './add-server-form.tsx';
import { describeSignInFailure } from '../sign-in-failure.ts';

/** Opens a tool in the Tool runner. */
export type RunToolHandler = (serverId: string, toolName: string) => void;

/**
 * The MCP servers: each with its status, protocol era and version, transport, headers (masked),
 * tool prefix and tools (annotation badges, deferred and needs-approval toggles); refresh,
 * reconnect, remove; OAuth sign-in (Connect, the signed-in account, Sign out); and a form to add
 * one, or the "Demo (OAuth)" preset. Everything a server sends is rendered as text.
 */
export function ServersPanel({
  registry,
  config,
  exclusions,
  onRunTool,
}: {
  registry: ServerRegistry;
  config: PlaygroundConfig;
  /** Why a server's tools are not offered to the model, by server id. */
  exclusions: ReadonlyMap<string, string>;
  onRunTool: RunToolHandler;
}) {
  const { entries, storageProblem } = useSyncExternalStore(
    registry.subscribe,
    registry.getSnapshot,
    registry.getSnapshot,
  );
  const [adding, setAdding] = useState(false);
  const configs = entries.map((entry) => entry.config);
  const missing = missingBuiltIns(configs, config);
  const oauthDemo = oauthDemoServer(config);
  const oauthDemoMissing = !configs.some(
    (server) => server.builtIn === oauthDemo.builtIn || server.name === oauthDemo.name,
  );

  return (
    <div className="servers" data-testid="servers">
      <div className="servers__actions">
        <button
          type="button"
          className="button button--small"
          aria-expanded={adding}
          data-testid="add-server-toggle"
          onClick={() => setAdding((open) => !open)}
        >
          {adding ? 'Close the form' : 'Add a server'}
        </button>
        {missing.length > 0 && (
          <button
            type="button"
            className="button button--secondary button--small"
            data-testid="restore-servers"
            onClick={() => {
              for (const server of missing) registry.add(server);
            }}
          >
            Restore default servers
          </button>
        )}
        {oauthDemoMissing && (
          <button
            type="button"
            className="button button--secondary button--small"
            data-testid="add-oauth-demo"
            title="The demo server's OAuth-protected endpoint: sign in through the local test authorization server"
            onClick={() => registry.add(oauthDemo)}
          >
            Add Demo (OAuth)
          </button>
        )}
      </div>
      {adding && (
        <AddServerForm
          existing={configs}
          onAdd={(server) => {
            registry.add(server);
            setAdding(false);
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      {storageProblem !== undefined && (
        <p className="problem" role="alert">
          {storageProblem}
        </p>
      )}
      {entries.length === 0 && (
        <p className="muted">No servers. Add one, or restore the default servers.</p>
      )}
      {entries.map((entry) => (
        <ServerCard
          key={entry.config.id}
          entry={entry}
          registry={registry}
          exclusion={exclusions.get(entry.config.id)}
          onRunTool={onRunTool}
        />
      ))}
    </div>
  );
}

const statusLabels: Record<McpServerStatus, string> = {
  idle: 'Not connected yet',
  connecting: 'Connecting…',
  cached: 'Tools from the cache',
  connected: 'Connected',
  'needs-auth': 'Sign-in needed',
  error: 'Not connected',
  closed: 'Closed',
};

const transportLabels = {
  auto: 'auto (Streamable HTTP, then SSE)',
  'streamable-http': 'Streamable HTTP',
  sse: 'legacy SSE',
  custom: 'custom',
} as const;

function ServerCard({
  entry,
  registry,
  exclusion,
  onRunTool,
}: {
  entry: ServerEntry;
  registry: ServerRegistry;
  exclusion: string | undefined;
  onRunTool: RunToolHandler;
}) {
  const { config, state } = entry;
  const [busy, setBusy] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  // A 401 from a server added without OAuth is not an outage: offer the sign-in instead.
  const offersOAuth = state.status === 'error' && config.auth !== 'oauth' && asksForSignIn(state);
  const run = (action: () => Promise<void>) => {
    setBusy(true);
    void action().finally(() => setBusy(false));
  };

  return (
    <article
      className={`server-card server-card--${state.status}`}
      data-testid="server-card"
      data-server-name={config.name}
      data-status={state.status}
      aria-label={`Server ${config.name}`}
    >
      <header className="server-card__header">
        <h3 className="server-card__name">{config.name}</h3>
        <span
          className={`status-pill status-pill--${state.status}`}
          data-testid="server-status"
          data-status={state.status}
          role="status"
        >
          <span className="status-dot" aria-hidden="true" />
          {statusLabels[state.status]}
        </span>
      </header>
      <dl className="server-card__facts">
        <dt>URL</dt>
        <dd>
          <code data-testid="server-url">{config.url}</code>
        </dd>
        <dt>Protocol</dt>
        <dd data-testid="server-protocol">{describeProtocol(state)}</dd>
        <dt>Transport</dt>
        <dd>
          {state.transport === undefined
            ? transportLabels[config.transport]
            : transportLabels[state.transport]}
          {config.transport === 'auto' && state.transport !== undefined && ' (auto)'}
        </dd>
        {state.serverInfo !== undefined && (
          <>
            <dt>Server</dt>
            <dd data-testid="server-info">
              {state.serverInfo.name} {state.serverInfo.version}
            </dd>
          </>
        )}
        {config.toolPrefix !== '' && (
          <>
            <dt>Tool prefix</dt>
            <dd>
              <code>{config.toolPrefix}</code>
            </dd>
          </>
        )}
        {config.headers.length > 0 && (
          <>
            <dt>Headers</dt>
            <dd>
              <ul className="header-list" data-testid="server-headers">
                {config.headers.map((header) => (
                  <li key={header.name}>
                    <code>{header.name}</code>: <span aria-label="hidden value">••••••••</span>
                  </li>
                ))}
              </ul>
              <span className="field__hint">Values kept in this browser (localStorage).</span>
            </dd>
          </>
        )}
      </dl>
      {state.status === 'error' && !offersOAuth && (
        <div className="error-box" role="alert" data-testid="server-error">
          <strong>Could not use this server</strong>{' '}
          {state.error !== undefined && (
            <code data-testid="server-error-code">{state.error.code}</code>
          )}
          <p data-testid="server-error-message">
            {state.error?.message ?? 'The connection failed.'}
          </p>
          <p className="muted">The chat works without its tools. Reconnect when it is back.</p>
        </div>
      )}
      {offersOAuth && (
        <div className="warning-box" data-testid="server-offer-oauth">
          <p>
            <strong>This server asks you to sign in</strong> (HTTP 401). Its tools are available
            once you do.
          </p>
          <button
            type="button"
            className="button button--small"
            data-testid="server-use-oauth"
            onClick={() => registry.update(config.id, (current) => ({ ...current, auth: 'oauth' }))}
          >
            Use OAuth sign-in
          </button>
        </div>
      )}
      {(config.auth === 'oauth' || state.status === 'needs-auth') && (
        <ServerSignIn entry={entry} registry={registry} />
      )}
      {exclusion !== undefined && state.status !== 'error' && (
        <p className="warning-box" data-testid="server-exclusion">
          {exclusion}
        </p>
      )}
      <div className="server-card__actions">
        {state.status === 'error' && !offersOAuth ? (
          <button
            type="button"
            className="button button--small"
            data-testid="server-reconnect"
            disabled={busy}
            onClick={() => run(() => registry.reconnect(config.id))}
          >
            Reconnect
          </button>
        ) : (
          <button
            type="button"
            className="button button--secondary button--small"
            data-testid="server-refresh"
            disabled={busy || state.status === 'connecting'}
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
      <ToolList entry={entry} registry={registry} onRunTool={onRunTool} />
      <TrafficView log={entry.traffic} />
    </article>
  );
}

/** What the sign-in box is doing. */
type SignInPhase = 'idle' | 'signing-in' | 'redirecting' | 'signing-out';

/**
 * OAuth sign-in of one server: with status `needs-auth`, why and a "Connect" button (the
 * popup opens straight from the click; a blocked popup becomes a full-page redirect); once
 * signed in, the issuer's host, the granted scope and "Sign out". Failures (popup closed, access
 * denied) are shown here, and Connect stays offered. No token is ever shown.
 */
function ServerSignIn({ entry, registry }: { entry: ServerEntry; registry: ServerRegistry }) {
  const { config, state } = entry;
  const [phase, setPhase] = useState<SignInPhase>('idle');
  const [failure, setFailure] = useState<string | undefined>();
  const account = state.account;

  const connect = () => {
    setFailure(undefined);
    setPhase('signing-in');
    // Called straight from the click, nothing awaited before: the popup needs the activation.
    registry.authorize(config.id).then(
      (outcome) => setPhase(outcome === 'redirected' ? 'redirecting' : 'idle'),
      (error: unknown) => {
        setPhase('idle');
        setFailure(describeSignInFailure(error));
      },
    );
  };
  const signOut = () => {
    setFailure(undefined);
    setPhase('signing-out');
    registry.signOut(config.id).then(
      () => setPhase('idle'),
      (error: unknown) => {
        setPhase('idle');
        setFailure(`Could not sign out: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  };

  if (config.auth !== 'oauth') {
    // needs-auth without an OAuth provider: offer to turn OAuth on.
    return (
      <p className="warning-box" data-testid="server-offer-oauth">
        This server asks you to sign in.{' '}
        <button
          type="button"
          className="link-button"
          data-testid="server-use-oauth"
          onClick={() => registry.update(config.id, (current) => ({ ...current, auth: 'oauth' }))}
        >
          Use OAuth sign-in
        </button>
      </p>
    );
  }

  return (
    <div className="sign-in" data-testid="server-auth" data-phase={phase}>
      {state.status === 'needs-auth' && (
        <div className="sign-in__needed" data-testid="server-needs-auth">
          <strong>
            {account?.signedIn === true
              ? 'This server needs you to sign in again'
              : 'This server needs you to sign in'}
          </strong>
          <p>
            {account?.signedIn === true
              ? 'It asks for more access than you granted, or no longer accepts your sign-in.'
              : 'Its tools are available once you sign in (OAuth).'}
          </p>
          {phase === 'redirecting' ? (
            <p data-testid="server-auth-redirecting">Taking you to the sign-in page…</p>
          ) : (
            <button
              type="button"
              className="button button--small"
              data-testid="server-connect"
              disabled={phase !== 'idle'}
              onClick={connect}
            >
              {phase === 'signing-in' ? 'Waiting for sign-in…' : 'Connect'}
            </button>
          )}
        </div>
      )}
      {account?.signedIn === true ? (
        <div className="sign-in__account" data-testid="server-account" data-signed-in="true">
          <p>
            <strong>Signed in</strong>
            {account.issuer !== undefined && (
              <>
                {' '}
                at <code data-testid="server-account-issuer">{issuerHost(account.issuer)}</code>
              </>
            )}
          </p>
          <p className="muted">
            Scope:{' '}
            <code data-testid="server-account-scope">
              {account.scope === undefined || account.scope === '' ? '(none)' : account.scope}
            </code>
            {account.expiresAt !== undefined && (
              <>
                {' '}
                · access token until {new Date(account.expiresAt).toLocaleTimeString()}, then
                renewed when a refresh token allows
              </>
            )}
          </p>
          <button
            type="button"
            className="button button--secondary button--small"
            data-testid="server-sign-out"
            disabled={phase !== 'idle'}
            onClick={signOut}
          >
            {phase === 'signing-out' ? 'Signing out…' : 'Sign out'}
          </button>
        </div>
      ) : (
        state.status !== 'needs-auth' && (
          <p className="muted" data-testid="server-account" data-signed-in="false">
            OAuth: not signed in.
          </p>
        )
      )}
      {failure !== undefined && (
        <p className="problem" role="alert" data-testid="server-auth-failure">
          {failure}
        </p>
      )}
    </div>
  );
}

/** The host of an issuer URL (the whole string when it is not a URL). */
function issuerHost(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}

/** Whether a failed server answered HTTP 401 (it wants a sign-in the config does not offer). */
function asksForSignIn(state: McpServerSnapshot): boolean {
  return state.error?.code === 'needs_auth' || state.error?.details?.['status'] === 401;
}

/** How many tools show before "Show all". */
const toolsShown = 25;
/** Tool lists longer than this start folded. */
const foldAbove = 20;

function ToolList({
  entry,
  registry,
  onRunTool,
}: {
  entry: ServerEntry;
  registry: ServerRegistry;
  onRunTool: RunToolHandler;
}) {
  const { config, state } = entry;
  const [filter, setFilter] = useState('');
  const [showAll, setShowAll] = useState(false);
  const tools = state.tools ?? [];
  if (tools.length === 0) {
    return (
      <p className="muted server-card__no-tools">
        {state.status === 'connecting' || state.status === 'idle'
          ? 'Listing the tools…'
          : state.status === 'needs-auth'
            ? 'Sign in to list its tools.'
            : 'No tools listed.'}
      </p>
    );
  }
  const needle = filter.trim().toLowerCase();
  const matching =
    needle === ''
      ? tools
      : tools.filter((tool) =>
          `${tool.name} ${tool.title ?? ''} ${tool.description}`.toLowerCase().includes(needle),
        );
  const shown = showAll ? matching : matching.slice(0, toolsShown);
  const deferredCount = tools.filter((tool) => tool.deferred === true).length;
  const allNames = tools.map((tool) => tool.originalName);

  const setDeferred = (names: '*' | string[]) =>
    registry.update(config.id, (current) => ({ ...current, deferredTools: names }));
  const toggleDeferred = (tool: McpToolDescriptor) => {
    const current = config.deferredTools === '*' ? allNames : config.deferredTools;
    setDeferred(
      tool.deferred === true
        ? current.filter((name) => name !== tool.originalName)
        : [...current, tool.originalName],
    );
  };
  const toggleApproval = (tool: McpToolDescriptor) =>
    registry.update(config.id, (current) => ({
      ...current,
      approvalTools:
        tool.needsApproval === true
          ? current.approvalTools.filter((name) => name !== tool.originalName)
          : [...current.approvalTools, tool.originalName],
    }));

  return (
    <details
      className="tools"
      aria-label={`Tools of ${config.name}`}
      // Long lists start folded, so that every server fits on screen.
      open={tools.length <= foldAbove}
    >
      <summary className="tools__summary" data-testid="tool-count">
        {tools.length} tools{deferredCount > 0 ? `, ${deferredCount} deferred` : ''}
      </summary>
      <div className="tools__bulk">
        <span className="muted">Deferred tools reach the model through tool_search.</span>
        <button
          type="button"
          className="link-button"
          disabled={deferredCount === tools.length}
          onClick={() => setDeferred('*')}
        >
          Defer all
        </button>
        <button
          type="button"
          className="link-button"
          disabled={deferredCount === 0}
          onClick={() => setDeferred([])}
        >
          Defer none
        </button>
      </div>
      {tools.length > 8 && (
        <input
          type="search"
          className="tools__filter"
          placeholder={`Filter ${tools.length} tools`}
          aria-label={`Filter the tools of ${config.name}`}
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
      )}
      <ul className="tool-list" data-testid="tool-list">
        {shown.map((tool) => (
          <ToolRow
            key={tool.name}
            tool={tool}
            onToggleDeferred={() => toggleDeferred(tool)}
            onToggleApproval={() => toggleApproval(tool)}
            onRun={() => onRunTool(config.id, tool.originalName)}
          />
        ))}
      </ul>
      {matching.length > shown.length && (
        <button type="button" className="link-button" onClick={() => setShowAll(true)}>
          Show all {matching.length} tools
        </button>
      )}
      {matching.length === 0 && <p className="muted">No tool matches “{filter}”.</p>}
    </details>
  );
}

function ToolRow({
  tool,
  onToggleDeferred,
  onToggleApproval,
  onRun,
}: {
  tool: McpToolDescriptor;
  onToggleDeferred: () => void;
  onToggleApproval: () => void;
  onRun: () => void;
}) {
  const badges = annotationBadges(tool);
  return (
    <li
      className="tool-row"
      data-testid="tool-item"
      data-tool-name={tool.originalName}
      data-deferred={tool.deferred === true}
      data-needs-approval={tool.needsApproval === true}
    >
      <div className="tool-row__head">
        <code className="tool-list__name">{tool.originalName}</code>
        {tool.title !== undefined && <span className="tool-row__title">{tool.title}</span>}
        <button
          type="button"
          className="link-button tool-row__run"
          aria-label={`Run ${tool.originalName} in the tool runner`}
          data-testid="tool-run"
          onClick={onRun}
        >
          Run…
        </button>
      </div>
      {tool.name !== tool.originalName && (
        <span className="tool-row__model-name">
          model sees <code>{tool.name}</code>
        </span>
      )}
      {tool.description !== '' && <p className="tool-row__description">{tool.description}</p>}
      {badges.length > 0 && (
        <ul className="badges" aria-label="Annotations (hints from the server)">
          {badges.map((badge) => (
            <li key={badge.label} className={`hint hint--${badge.tone}`} data-hint={badge.label}>
              {badge.label}
            </li>
          ))}
        </ul>
      )}
      <div className="tool-row__toggles">
        <label className="toggle">
          <input
            type="checkbox"
            checked={tool.deferred === true}
            data-testid="tool-deferred"
            onChange={onToggleDeferred}
          />
          Deferred
        </label>
        <label className="toggle">
          <input
            type="checkbox"
            checked={tool.needsApproval === true}
            data-testid="tool-needs-approval"
            onChange={onToggleApproval}
          />
          Needs approval
        </label>
      </div>
    </li>
  );
}

interface Badge {
  label: string;
  tone: 'neutral' | 'safe' | 'risky' | 'danger';
}

/** The annotations the server set (unset ones say nothing), plus an output schema marker. */
function annotationBadges(tool: McpToolDescriptor): Badge[] {
  const annotations = tool.annotations;
  const badges: Badge[] = [];
  if (annotations?.readOnlyHint === true) badges.push({ label: 'read-only', tone: 'safe' });
  if (annotations?.readOnlyHint !== true && annotations?.destructiveHint === true) {
    badges.push({ label: 'destructive', tone: 'danger' });
  }
  if (annotations?.readOnlyHint !== true && annotations?.destructiveHint === false) {
    badges.push({ label: 'not destructive', tone: 'neutral' });
  }
  if (annotations?.idempotentHint === true) badges.push({ label: 'idempotent', tone: 'neutral' });
  if (annotations?.openWorldHint === true) badges.push({ label: 'open world', tone: 'risky' });
  if (annotations?.openWorldHint === false) badges.push({ label: 'closed world', tone: 'neutral' });
  if (
    annotations === undefined ||
    (annotations.readOnlyHint === undefined && annotations.destructiveHint === undefined)
  ) {
    badges.push({ label: 'no safety hints', tone: 'risky' });
  }
  if (tool.outputSchema !== undefined) badges.push({ label: 'output schema', tone: 'neutral' });
  return badges;
}

function describeProtocol(state: McpServerSnapshot): string {
  if (state.protocolVersion === undefined) {
    return state.status === 'error' ? 'unknown (not connected)' : 'not known yet';
  }
  const era =
    state.protocolEra === 'modern'
      ? 'modern era (stateless)'
      : state.protocolEra === 'legacy'
        ? '2025 era (initialize, sessions)'
        : 'unknown era';
  return `${state.protocolVersion}, ${era}`;
}

function TrafficView({ log }: { log: TrafficLog }) {
  const entries = useSyncExternalStore(log.subscribe, log.getSnapshot, log.getSnapshot);
  return (
    <details className="traffic">
      <summary>HTTP traffic ({entries.length})</summary>
      {entries.length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <ol className="traffic__list" data-testid="traffic-list">
          {entries.map((entry) => (
            <li
              key={entry.id}
              className={`traffic__entry${entry.status !== undefined && entry.status >= 400 ? ' traffic__entry--failed' : ''}`}
              data-testid="traffic-entry"
              data-status={entry.status ?? ''}
            >
              <code>
                {entry.method}
                {entry.rpcMethod === undefined ? '' : ` ${entry.rpcMethod}`}
                {entry.toolName === undefined ? '' : ` (${entry.toolName})`}
              </code>{' '}
              <span className="traffic__status">
                {entry.status ?? (entry.note === undefined ? '…' : '')}
                {entry.durationMs === undefined ? '' : ` · ${entry.durationMs} ms`}
              </span>
              {entry.note !== undefined && <span className="traffic__note"> — {entry.note}</span>}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
