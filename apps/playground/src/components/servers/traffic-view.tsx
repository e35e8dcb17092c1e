import { useSyncExternalStore } from 'react';
import type { TrafficEntry, TrafficLog } from '../../traffic-log.ts';

/** A server's recent HTTP traffic (folded): method, JSON-RPC method, tool, status and time. */
export function TrafficView({ log }: { log: TrafficLog }) {
  const entries = useSyncExternalStore(log.subscribe, log.getSnapshot, log.getSnapshot);
  return (
    <details className="traffic">
      <summary>HTTP traffic ({entries.length})</summary>
      {entries.length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <ol className="traffic__list" data-testid="traffic-list">
          {entries.map((entry) => (
            <TrafficRow key={entry.id} entry={entry} />
          ))}
        </ol>
      )}
    </details>
  );
}

function TrafficRow({ entry }: { entry: TrafficEntry }) {
  const failed = entry.status !== undefined && entry.status >= 400;
  return (
    <li
      className={`traffic__entry${failed ? ' traffic__entry--failed' : ''}`}
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
  );
}
