import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { hostOf, throwIfOffline } from '../internal/offline.ts';
import { errorFromWire, type WireErrorBody } from './agent-wire.ts';

/** How a remote agent reaches its server (the resolved `RemoteAgentOptions`). */
export interface RemoteConnection {
  /** The agent's base URL, ending in `/`. */
  baseUrl: URL;
  fetch: typeof globalThis.fetch;
  headers: () => Promise<Headers>;
  /** Time limit until the response headers of every request (ms). */
  timeoutMs: number;
}

/**
 * Sends one request to the agent's server and returns its 2xx response (the body unread).
 * The time limit covers the wait for the response headers; `signal` aborts it.
 *
 * @throws SwitchboardError `connection_refused` (server unreachable, or the browser offline:
 *   nothing was delivered), `timeout` (`details.which: 'request'`), `aborted`, or the server's
 *   own error (its code, message and details) for a non-2xx answer — `http_status` when the
 *   answer has no error body (a proxy's page, an app's `authorize` refusal).
 */
export async function remoteRequest(
  connection: RemoteConnection,
  path: string,
  init: { method: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal },
): Promise<Response> {
  const url = new URL(path, connection.baseUrl);
  throwIfOffline(url.host);
  const headers = await connection.headers();
  for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  // The limit covers the wait for the response headers only: an event stream's body goes on
  // for as long as the run (its silence has a limit of its own).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, connection.timeoutMs);
  const abort = () => controller.abort();
  if (init.signal?.aborted === true) abort();
  else init.signal?.addEventListener('abort', abort, { once: true });
  let response: Response;
  try {
    response = await connection.fetch(url, {
      method: init.method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: controller.signal,
    });
  } catch (error) {
    if (timedOut) {
      throw new SwitchboardError(
        'timeout',
        `The agent server at ${url.host} did not answer within ${connection.timeoutMs} ms.`,
        { cause: error, details: { which: 'request', timeoutMs: connection.timeoutMs } },
      );
    }
    if (init.signal?.aborted === true) {
      throw new SwitchboardError('aborted', 'The request to the agent server was aborted.', {
        cause: error,
      });
    }
    throw new SwitchboardError(
      'connection_refused',
      `Could not reach the agent server at ${url.host}.`,
      { cause: error, details: { host: url.host } },
    );
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', abort);
  }
  if (response.ok) return response;
  throw await errorOfResponse(response, url);
}

/** The error a non-2xx answer carries ({@link WireErrorBody}), else `http_status`. */
async function errorOfResponse(response: Response, url: URL): Promise<SwitchboardError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<WireErrorBody>;
    if (typeof body.error?.code === 'string' && typeof body.error.message === 'string') {
      return errorFromWire(body.error);
    }
  } catch {
    // Not JSON: a proxy's or the app's own page; reported by status below.
  }
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  return new SwitchboardError(
    'http_status',
    `The agent server at ${url.host} answered HTTP ${response.status}.`,
    {
      details:
        excerpt === '' ? { status: response.status } : { status: response.status, body: excerpt },
    },
  );
}

/** Reads a 2xx response's JSON body. @throws SwitchboardError `invalid_response` when it is not JSON. */
export async function readJson<T>(response: Response): Promise<T> {
  try {
    return (await response.json()) as T;
  } catch (error) {
    if (isSwitchboardError(error)) throw error;
    throw new SwitchboardError(
      'invalid_response',
      `The agent server at ${hostOf(response.url)} answered with a body that is not JSON.`,
      { cause: error },
    );
  }
}
