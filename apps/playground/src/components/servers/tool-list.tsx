import type { McpServer, McpServerStatus, McpToolDescriptor } from '@switchboard/core';
import { useMcpTools } from '@switchboard/react';
import { useState } from 'react';
import { plural } from '../../plural.ts';
import type { ServerConfig } from '../../server-config.ts';
import type { ServerRegistry } from '../../server-registry.ts';
import { ToolRow } from './tool-row.tsx';

/** Opens a tool in the Tool runner. */
export type RunToolHandler = (serverId: string, toolName: string) => void;

/** How many tools show before "Show all". */
const toolsShown = 25;
/** Tool lists longer than this start folded. */
const foldAbove = 20;

/**
 * A server's tools, through the library's own `useMcpTools`: a filter for long lists, "Defer
 * all / none", and per tool its deferred and needs-approval toggles (a config change: the
 * registry replaces the server) and "Run…".
 */
export function ToolList({
  server,
  config,
  status,
  registry,
  onRunTool,
}: {
  server: McpServer;
  config: ServerConfig;
  status: McpServerStatus;
  registry: ServerRegistry;
  onRunTool: RunToolHandler;
}) {
  // The registry connects and lists; a listing of our own would also reconnect a failed server
  // that waits for "Reconnect". So the hook does not list: it shows what the server listed.
  const { data: tools = [] } = useMcpTools(server, { enabled: false });
  const [filter, setFilter] = useState('');
  const [showAll, setShowAll] = useState(false);
  if (tools.length === 0) {
    return (
      <p className="muted server-card__no-tools">
        {status === 'connecting' || status === 'idle'
          ? 'Listing the tools…'
          : status === 'needs-auth'
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

  const change = (next: (current: ServerConfig) => ServerConfig) =>
    registry.update(config.id, next);
  const allNames = tools.map((tool) => tool.originalName);

  return (
    <details
      className="tools"
      aria-label={`Tools of ${config.name}`}
      // Long lists start folded, so that every server fits on screen.
      open={tools.length <= foldAbove}
    >
      <summary className="tools__summary" data-testid="tool-count">
        {plural(tools.length, 'tool')}
        {deferredCount > 0 ? `, ${deferredCount} deferred` : ''}
      </summary>
      <div className="tools__bulk">
        <span className="muted">Deferred tools reach the model through tool_search.</span>
        <button
          type="button"
          className="link-button"
          disabled={deferredCount === tools.length}
          onClick={() => change((current) => ({ ...current, deferredTools: '*' }))}
        >
          Defer all
        </button>
        <button
          type="button"
          className="link-button"
          disabled={deferredCount === 0}
          onClick={() => change((current) => ({ ...current, deferredTools: [] }))}
        >
          Defer none
        </button>
      </div>
      {tools.length > 8 && (
        <input
          type="search"
          className="tools__filter"
          placeholder={`Filter ${plural(tools.length, 'tool')}`}
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
            onToggleDeferred={() => change((current) => toggleDeferred(current, tool, allNames))}
            onToggleApproval={() => change((current) => toggleApproval(current, tool))}
            onRun={() => onRunTool(config.id, tool.originalName)}
          />
        ))}
      </ul>
      {matching.length > shown.length && (
        <button type="button" className="link-button" onClick={() => setShowAll(true)}>
          Show all {plural(matching.length, 'tool')}
        </button>
      )}
      {matching.length === 0 && <p className="muted">No tool matches “{filter}”.</p>}
    </details>
  );
}

/** The config with `tool` deferred, or no longer deferred ("all" becomes the list of names). */
function toggleDeferred(
  config: ServerConfig,
  tool: McpToolDescriptor,
  allNames: readonly string[],
): ServerConfig {
  const deferred = config.deferredTools === '*' ? allNames : config.deferredTools;
  return {
    ...config,
    deferredTools:
      tool.deferred === true
        ? deferred.filter((name) => name !== tool.originalName)
        : [...deferred, tool.originalName],
  };
}

/** The config with `tool` needing approval, or no longer needing it. */
function toggleApproval(config: ServerConfig, tool: McpToolDescriptor): ServerConfig {
  return {
    ...config,
    approvalTools:
      tool.needsApproval === true
        ? config.approvalTools.filter((name) => name !== tool.originalName)
        : [...config.approvalTools, tool.originalName],
  };
}
