import { authorizationAborted, authorizationFailure } from './authorization-callback.ts';
import { isOAuthCallbackMessage } from './oauth-redirect-channel.ts';

/** Options of {@link waitForPopupCallback}. */
export interface PopupCallbackOptions {
  /** The popup `window.open` returned. */
  popup: Window;
  /** Where messages arrive: the opener window. */
  target: Window;
  /** The only origin a callback message is accepted from: the redirect URI's. */
  redirectOrigin: string;
  /** Prefix of error messages. */
  where: string;
  /** Give up after this long, in ms. */
  timeoutMs: number;
  /** How often `popup.closed` is checked, in ms. */
  pollIntervalMs: number;
  signal?: AbortSignal;
}

/**
 * Waits for the callback page in `popup` to post the authorization response's query string
 * (`OAuthCallbackMessage`). A message counts only when its `origin` is `redirectOrigin`, its
 * `source` is `popup` and its `data` has the callback `type` tag; anything else is ignored.
 *
 * @throws SwitchboardError `needs_auth` with `details.reason` `closed` (the popup was found
 *   closed on two checks in a row with no message), `timeout` (the popup is closed); `aborted`
 *   when `signal` aborts (the popup is closed).
 */
export function waitForPopupCallback(options: PopupCallbackOptions): Promise<string> {
  const { popup, target, redirectOrigin, where, timeoutMs, pollIntervalMs, signal } = options;
  return new Promise<string>((resolve, reject) => {
    let closedOnce = false;
    const cleanup = () => {
      target.removeEventListener('message', onMessage);
      clearInterval(poll);
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error, closePopup: boolean) => {
      cleanup();
      if (closePopup) closeQuietly(popup);
      reject(error);
    };
    const onMessage = (event: MessageEvent<unknown>) => {
      if (event.origin !== redirectOrigin || event.source !== popup) return;
      if (!isOAuthCallbackMessage(event.data)) return;
      cleanup();
      resolve(event.data.query);
    };
    const onAbort = () => {
      if (signal !== undefined) fail(authorizationAborted(where, signal), true);
    };
    // The callback page posts, then closes itself: a message may still be queued when the popup
    // is first seen closed, so only a second closed check in a row fails.
    const poll = setInterval(() => {
      if (!isClosed(popup)) {
        closedOnce = false;
        return;
      }
      if (closedOnce) {
        fail(
          authorizationFailure(
            'closed',
            `${where}: the authorization window was closed before the authorization finished.`,
          ),
          false,
        );
      }
      closedOnce = true;
    }, pollIntervalMs);
    const timer = setTimeout(() => {
      fail(
        authorizationFailure(
          'timeout',
          `${where}: the authorization did not finish within ${Math.round(timeoutMs / 1000)} s.`,
        ),
        true,
      );
    }, timeoutMs);
    target.addEventListener('message', onMessage);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
  });
}

function isClosed(popup: Window): boolean {
  try {
    return popup.closed;
  } catch {
    return false;
  }
}

function closeQuietly(popup: Window): void {
  try {
    popup.close();
  } catch {
    // Already closed, or not ours to close.
  }
}
