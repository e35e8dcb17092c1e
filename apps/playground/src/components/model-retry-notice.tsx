import type { ChatModelRetry } from '@switchboard/core';
import { useEffect, useState } from 'react';

/**
 * What the thinking indicator says while a model call is tried again: why it failed, and
 * "retrying in N s (attempt a of m)" counting down to `retryAt`, or the fallback model tried now.
 */
export function describeModelRetry(retry: ChatModelRetry, now: number): string {
  const why =
    retry.status === 429
      ? 'Rate limited'
      : retry.status === undefined
        ? 'The model call failed'
        : `The model answered HTTP ${retry.status}`;
  if (retry.kind === 'fallback') {
    return `${retry.failedModel} failed (${retry.reason}) — trying ${retry.model}…`;
  }
  const seconds = Math.ceil(Math.max(0, retry.retryAt - now) / 1000);
  const when = seconds > 0 ? `retrying in ${seconds} s` : 'retrying now';
  return `${why} — ${when} (attempt ${retry.attempt} of ${retry.maxAttempts})…`;
}

/**
 * The thinking indicator during a retry wait, updated every second until the attempt starts.
 * Render it with a `key` per retry (e.g. `retryAt`), so each retry starts from its own clock.
 */
export function ModelRetryNotice({ retry }: { retry: ChatModelRetry }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <p
      className="chat__thinking"
      role="status"
      data-testid="chat-model-retry"
      data-kind={retry.kind}
      title={retry.reason}
    >
      {describeModelRetry(retry, now)}
    </p>
  );
}
