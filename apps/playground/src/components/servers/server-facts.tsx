import type { McpServerSnapshot } from '@switchboard/core';
import type { ServerConfig } from '../../server-config.ts';

const transportLabels = {
  auto: 'auto (Streamable HTTP, then SSE)',
  'streamable-http': 'Streamable HTTP',
  sse: 'legacy SSE',
  custom: 'custom',
} as const;

/**
 * What is known about a server: URL, protocol version and era, transport (the negotiated one
 * once connected), server name and version, tool prefix, and header names (values masked).
 */
export function ServerFacts({ config, state }: { config: ServerConfig; state: McpServerSnapshot }) {
  return (
    <dl className="server-card__facts">
      <dt>URL</dt>
      <dd>
        <code data-testid="server-url">{config.url}</code>
      </dd>
      <dt>Protocol</dt>
      <dd data-testid="server-protocol">{describeProtocol(state)}</dd>
      <dt>Transport</dt>
      <dd>
        {transportLabels[state.transport ?? config.transport]}
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
  );
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
