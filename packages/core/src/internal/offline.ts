import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * True when the browser says it has no network (`navigator.onLine === false`). False where
 * there is no `navigator.onLine` (Node, workers without it): a request there fails on its own.
 * `onLine` can be true without a working network, never false with one, so `false` is trusted.
 */
export function isBrowserOffline(): boolean {
  const navigator = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
  return navigator?.onLine === false;
}

/**
 * Throws, before a request goes out, when the browser is offline: a request then cannot leave
 * the browser, and without this check it would wait for a limit instead of saying so.
 *
 * The code is `connection_refused` (nothing was delivered, so the request can be sent again
 * safely) with `details.reason: 'offline'`, which `describeError` turns into "You are offline"
 * instead of blaming the server.
 *
 * @param host - The host the request was for (`api.openai.com`, `127.0.0.1:3001`), for the message.
 * @throws SwitchboardError `connection_refused` (`details.reason: 'offline'`, `details.host`).
 */
export function throwIfOffline(host: string): void {
  if (!isBrowserOffline()) return;
  throw new SwitchboardError(
    'connection_refused',
    `The browser is offline; the request to ${host} was not sent.`,
    { details: { reason: 'offline', host } },
  );
}

/** The `host` (with port) of `url`, or `url` itself when it is not a URL. */
export function hostOf(url: string | URL): string {
  try {
    return new URL(url).host;
  } catch {
    return String(url);
  }
}
