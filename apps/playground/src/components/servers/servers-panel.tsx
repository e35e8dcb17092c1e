import { useState, useSyncExternalStore } from 'react';
import type { PlaygroundConfig } from '../../playground-config.ts';
import type { ServerRegistry } from '../../server-registry.ts';
import { AddServerForm } from '../add-server-form.tsx';
import { ServerCard } from './server-card.tsx';
import { ServerPresets } from './server-presets.tsx';
import type { RunToolHandler } from './tool-list.tsx';

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
        <ServerPresets registry={registry} config={config} configs={configs} />
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
