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

/** What {@link remoteRequest} and {@link remoteJson} send. */
interface RemoteRequestInit {
  method: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Sends one request to the agent's server and returns its 2xx response (the body unread, for
 * an event stream). The time limit covers the wait for the response headers (and the body of
 * an error answer); `signal` aborts it.
 *
 * @throws SwitchboardError `connection_refused` (server unreachable, or the browser offline:
 *   nothing was delivered), `timeout` (`details.which: 'request'`), `aborted`, or the server's
 *   own error (its code, message and details) for a non-2xx answer — `http_status` when the
 *   answer has no error body (a proxy's page, an app's `authorize` refusal).
 */
export async function remoteRequest(
  connection: RemoteConnection,
  path: string,
  init: RemoteRequestInit,
): Promise<Response> {
  return await exchange(connection, path, init, async (response) => response);
}

/**
 * Sends one request and reads its 2xx answer's JSON body, all within the connection's time
 * limit: a server that sends its headers and then stalls mid-body is a `timeout` too.
 *
 * @throws SwitchboardError as {@link remoteRequest}; `invalid_response` when the body is not
 *   JSON.
 */
export async function remoteJson<T>(
  connection: RemoteConnection,
  path: string,
  init: RemoteRequestInit,
): Promise<T> {
  return await exchange(connection, path, init, (response) => readJson<T>(response));
}

/**
 * One request whose time limit lasts until `read` has what it needs of the 2xx answer (or the
 * error answer was read): the limit aborts the request, and with it the body being read.
 */
async function exchange<Result>(
  connection: RemoteConnection,
  path: string,
  init: RemoteRequestInit,
  read: (response: Response) => Promise<Result>,
): Promise<Result> {
  const url = new URL(path, connection.baseUrl);
  throwIfOffline(url.host);
  const headers = await connection.headers();
  for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  const controller = new AbortController();
  let timedOut = false;
  let expire: () => void = () => undefined;
  // Also raced with the reads below: a custom `fetch` whose body ignores the signal still ends.
  const expired = new Promise<never>((_, reject) => {
    expire = () =>
      reject(
        new SwitchboardError(
          'timeout',
          `The agent server at ${url.host} did not answer within ${connection.timeoutMs} ms.`,
          { details: { which: 'request', timeoutMs: connection.timeoutMs } },
        ),
      );
  });
  expired.catch(() => undefined);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    expire();
  }, connection.timeoutMs);
  const abort = () => controller.abort();
  if (init.signal?.aborted === true) abort();
  else init.signal?.addEventListener('abort', abort, { once: true });
  const failure = (error: unknown): SwitchboardError => {
    if (timedOut) {
      return new SwitchboardError(
        'timeout',
        `The agent server at ${url.host} did not answer within ${connection.timeoutMs} ms.`,
        { cause: error, details: { which: 'request', timeoutMs: connection.timeoutMs } },
      );
    }
    if (init.signal?.aborted === true) {
      return new SwitchboardError('aborted', 'The request to the agent server was aborted.', {
        cause: error,
      });
    }
    return new SwitchboardError(
      'connection_refused',
      `Could not reach the agent server at ${url.host}.`,
      { cause: error, details: { host: url.host } },
    );
  };
  try {
    let response: Response;
    try {
      response = await Promise.race([
        connection.fetch(url, {
          method: init.method,
          headers,
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          signal: controller.signal,
        }),
        expired,
      ]);
    } catch (error) {
      throw isSwitchboardError(error, 'timeout') ? error : failure(error);
    }
    if (!response.ok) throw await Promise.race([errorOfResponse(response, url), expired]);
    try {
      return await Promise.race([read(response), expired]);
    } catch (error) {
      if (timedOut && !isSwitchboardError(error, 'timeout')) throw failure(error);
      if (init.signal?.aborted === true && !isSwitchboardError(error)) throw failure(error);
      throw error;
    }
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', abort);
  }
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
