import type { McpServerSnapshot, McpServerStatus } from '@switchboard/core';
import { describeError } from '@switchboard/core';
import { ErrorNotice, useMcpServerStatus } from '@switchboard/react';
import type { ServerEntry, ServerRegistry } from '../../server-registry.ts';
import { OAuthOffer } from './oauth-offer.tsx';
import { ServerActions } from './server-actions.tsx';
import { ServerFacts } from './server-facts.tsx';
import { ServerSignIn } from './server-sign-in.tsx';
import { ToolList, type RunToolHandler } from './tool-list.tsx';
import { TrafficView } from './traffic-view.tsx';

const statusLabels: Record<McpServerStatus, string> = {
  idle: 'Not connected yet',
  connecting: 'Connecting…',
  cached: 'Tools from the cache',
  connected: 'Connected',
  'needs-auth': 'Sign-in needed',
  error: 'Not connected',
  closed: 'Closed',
};

/**
 * One MCP server: its status and facts, why it failed, its sign-in, its actions, its tools and
 * its HTTP traffic. The server's state comes from the library's own `useMcpServerStatus`.
 */
export function ServerCard({
  entry,
  registry,
  exclusion,
  onRunTool,
}: {
  entry: ServerEntry;
  registry: ServerRegistry;
  /** Why the server's tools are not offered to the model, if they are not. */
  exclusion: string | undefined;
  onRunTool: RunToolHandler;
}) {
  const { config, server } = entry;
  const state = useMcpServerStatus(server);
  const offersOAuth = config.auth !== 'oauth' && asksForSignIn(state);
  const failed = state.status === 'error' && !offersOAuth;

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
      <ServerFacts config={config} state={state} />
      {failed && <ServerFailure error={state.error} server={config.name} />}
      {offersOAuth && (
        <OAuthOffer
          onUseOAuth={() =>
            registry.update(config.id, (current) => ({ ...current, auth: 'oauth' }))
          }
        />
      )}
      {config.auth === 'oauth' && (
        // Signs in with the hook's authorize(), but signs out through the registry: it lists
        // again afterwards, so the card asks for a sign-in instead of sitting idle.
        <ServerSignIn state={state} onSignOut={() => registry.signOut(config.id)} />
      )}
      {exclusion !== undefined && state.status !== 'error' && (
        <p className="warning-box" data-testid="server-exclusion">
          {exclusion}
        </p>
      )}
      <ServerActions
        config={config}
        registry={registry}
        failed={failed}
        connecting={state.status === 'connecting'}
      />
      <ToolList
        server={server}
        config={config}
        status={state.status}
        registry={registry}
        onRunTool={onRunTool}
      />
      <TrafficView log={entry.traffic} />
    </article>
  );
}

/**
 * Why the server cannot be used, as an `<ErrorNotice>`. "Reconnect when it is back" only when
 * the server could not be reached at all: when it answered (an HTTP status, CORS, protocol), a
 * reconnect changes nothing until the server is fixed.
 */
function ServerFailure({ error, server }: { error: McpServerSnapshot['error']; server: string }) {
  const failure = error ?? new Error('The connection failed.');
  const unreachable = describeError(failure, { server }).unreachable;
  return (
    <ErrorNotice
      error={failure}
      server={server}
      title="Could not use this server"
      className="server-card__error"
      data-testid="server-error"
    >
      <p className="muted" data-testid="server-error-next">
        {unreachable
          ? 'The chat works without its tools. Reconnect when it is back.'
          : 'The chat works without its tools until the server is fixed.'}
      </p>
    </ErrorNotice>
  );
}

/**
 * Whether the server wants a sign-in: `needs-auth`, or a failure with HTTP 401. For a server
 * added without OAuth that is not an outage: the card offers the sign-in instead.
 */
function asksForSignIn(state: McpServerSnapshot): boolean {
  if (state.status === 'needs-auth') return true;
  if (state.status !== 'error') return false;
  return state.error?.code === 'needs_auth' || state.error?.details?.['status'] === 401;
}
