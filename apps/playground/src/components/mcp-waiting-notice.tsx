import type { McpRequestWaiting } from '@switchboard/core';
import { useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { McpAppsContext } from './mcp-app-slot.tsx';

/**
 * What a tool card says while its `tools/call` has had no response headers for the server's
 * `waitingNoticeMs` (`McpServerSnapshot.waiting`): most likely the request is queued in the
 * browser behind connections something else holds (6 per host), so it has not reached the
 * server. Counts the seconds since it started waiting.
 */
export function describeMcpWaiting(waiting: McpRequestWaiting, now: number): string {
  const seconds = Math.max(0, Math.floor((now - waiting.since) / 1000));
  return (
    `Waiting for the browser to send the request to ${waiting.host} — other tabs may be ` +
    `holding this server's connections (${seconds} s)…`
  );
}

const noSubscribe = () => () => {};

/** The waiting notice of the call `callId` on `serverName`, while it waits (ticks each second). */
export function McpWaitingNotice({
  serverName,
  callId,
}: {
  serverName: string | undefined;
  callId: string;
}) {
  const registry = useContext(McpAppsContext)?.registry;
  const entries = useSyncExternalStore(
    registry?.subscribe ?? noSubscribe,
    () => registry?.getSnapshot().entries,
    () => registry?.getSnapshot().entries,
  );
  const waiting = entries
    ?.find((entry) => entry.config.name === serverName)
    ?.state.waiting?.find((entry) => entry.callId === callId);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (waiting === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [waiting]);
  if (waiting === undefined) return null;
  return (
    <p className="tool-call__waiting" role="status" data-testid="tool-call-waiting">
      {describeMcpWaiting(waiting, Math.max(now, waiting.since))}
    </p>
  );
}
