import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/** Options of {@link startLoopbackRedirectListener}. */
export interface LoopbackRedirectListenerOptions {
  /** The TCP port on 127.0.0.1. Default 0: an ephemeral port the OS picks. */
  port?: number;
  /** The callback path. Default `'/callback'`. */
  callbackPath?: string;
  /**
   * Gets each callback's query; resolves `true` when it completed an authorization (the page
   * then says so) and `false` otherwise (denied, stale, forged, nothing pending).
   */
  onCallback: (query: URLSearchParams) => boolean | Promise<boolean>;
}

/** A running loopback redirect listener. */
export interface LoopbackRedirectListener {
  /** `http://127.0.0.1:<port><callbackPath>`: the redirect URI to register. */
  readonly redirectUrl: string;
  /** Stops listening and closes open connections. Idempotent. */
  close(): Promise<void>;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-content-type-options': 'nosniff',
} as const;

/**
 * Starts the HTTP listener a native app's authorization response comes back to (RFC 8252 §7.3:
 * loopback interface redirection, `http://127.0.0.1:<port>/<path>`; binding 127.0.0.1, not
 * `localhost`, per §8.3).
 *
 * Only `GET <callbackPath>` with a `Host` of this listener is handled: `onCallback` gets the
 * query and the browser tab gets a small static page ("You can close this tab"), which never
 * echoes the query. Other paths answer 404, other methods 405, another `Host` 421 (DNS
 * rebinding).
 *
 * @throws SwitchboardError `connection_refused` when the port cannot be bound (in use).
 */
export async function startLoopbackRedirectListener(
  options: LoopbackRedirectListenerOptions,
): Promise<LoopbackRedirectListener> {
  const callbackPath = options.callbackPath ?? '/callback';
  if (!callbackPath.startsWith('/')) {
    throw new SwitchboardError('invalid_input', 'The loopback callbackPath must start with "/".');
  }
  let expectedHost = '';
  const server = createServer((request, response) => {
    handle(request, response, expectedHost, callbackPath, options.onCallback).catch(() => {
      // Never an unhandled rejection (it would end the process): answer, or drop the socket.
      if (!response.headersSent) end(response, 400, 'Bad request.');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new SwitchboardError(
          'connection_refused',
          `Could not listen on 127.0.0.1:${options.port ?? 0} for the OAuth redirect.`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  expectedHost = `127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    redirectUrl: `http://${expectedHost}${callbackPath}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  expectedHost: string,
  callbackPath: string,
  onCallback: LoopbackRedirectListenerOptions['onCallback'],
): Promise<void> {
  if (request.headers.host !== expectedHost) {
    return end(response, 421, 'Misdirected request.');
  }
  let url: URL;
  try {
    // An absolute-form target (`GET http://[ HTTP/1.1`) may not parse.
    url = new URL(request.url ?? '/', `http://${expectedHost}`);
  } catch {
    return end(response, 400, 'Bad request.');
  }
  if (url.pathname !== callbackPath) return end(response, 404, 'Not found.');
  if (request.method !== 'GET') return end(response, 405, 'Method not allowed.');
  let completed: boolean;
  try {
    completed = await onCallback(url.searchParams);
  } catch {
    completed = false;
  }
  response.writeHead(completed ? 200 : 400, PAGE_HEADERS);
  response.end(page(completed));
}

function end(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}

function page(completed: boolean): string {
  const title = completed ? 'Signed in' : 'Sign-in not completed';
  const text = completed
    ? 'You are signed in. You can close this tab and return to the application.'
    : 'The sign-in did not complete. You can close this tab and return to the application.';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;margin:3rem"><h1>${title}</h1><p>${text}</p></body></html>`;
}
