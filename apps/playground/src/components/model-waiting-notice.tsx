import type { ChatModelWaiting } from '@switchboard/core';
import { useEffect, useState } from 'react';

/**
 * What the thinking indicator says while the model call has had no response headers: most
 * likely the browser's connections to that host (6 per host) are all held — often by the
 * long-lived streams of other playground tabs — so the request is queued in the browser, not
 * lost at the server. Counts the seconds since the request went out.
 */
export function describeModelWaiting(waiting: ChatModelWaiting, now: number): string {
  const seconds = Math.max(0, Math.floor((now - waiting.since) / 1000));
  return (
    `Waiting for a free connection to ${waiting.host} — other tabs may be holding them ` +
    `(${seconds} s)…`
  );
}

/** The thinking indicator while the model call waits for its response to start (ticks each second). */
export function ModelWaitingNotice({ waiting }: { waiting: ChatModelWaiting }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <p
      className="chat__thinking"
      role="status"
      data-testid="chat-model-waiting"
      title={`${waiting.model}: no response headers yet; still waiting.`}
    >
      {describeModelWaiting(waiting, now)}
    </p>
  );
}
