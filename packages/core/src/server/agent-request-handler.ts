import type { AgentEndpoint } from '../agent/agent-endpoint.ts';
import type { ExecuteInput } from '../agent/agent-options.ts';
import type { RunHandle } from '../agent/run-result.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import {
  AGENT_WIRE_PATHS,
  errorToWire,
  type StartedRun,
  type WireErrorBody,
} from '../remote/agent-wire.ts';
import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';
import { chunkEventStream } from './chunk-event-stream.ts';
import {
  branchSelectionBodySchema,
  executeBodySchema,
  renameBodySchema,
} from './execute-body-schema.ts';
import { LiveRuns } from './live-runs.ts';
import { readJsonBody } from './read-json-body.ts';

/** What a request asks to do, for {@link AgentRequestHandlerOptions.authorize}. */
export interface AgentAccess {
  /**
   * `execute` (start or resume a run), `stream` (read a run's chunks), `stop`, `load` (a
   * thread's runs or its selected branch), `list` (the threads), `rename`, `select_branch`
   * (docs/conversations.md, "Branches"), `delete`.
   */
  action: 'execute' | 'stream' | 'stop' | 'load' | 'list' | 'rename' | 'select_branch' | 'delete';
  /** The thread it touches; absent for `list`. */
  threadId?: string;
}

/** What `authorize` grants a request it lets through. */
export interface AgentAuthorization {
  /**
   * The run context of a run this request starts or resumes (`ExecuteInput.runContext`, given
   * to every tool as `context.runContext`): the signed-in user, say. Only the server sets it.
   */
  runContext?: unknown;
}

/** Options of {@link agentRequestHandler}. */
export interface AgentRequestHandlerOptions {
  /**
   * The path the API is mounted under, e.g. `/agent` (requests for `/agent/runs` …). Default `/`.
   * A request outside it is answered 404.
   */
  basePath?: string;
  /**
   * The app's authentication and authorization, called for every request before it does
   * anything (for `execute`, after the body was read and validated, so `threadId` is known):
   * return a `Response` to refuse it (401, 403 …: it is sent as it is), or an
   * {@link AgentAuthorization} (or nothing) to let it through. Check the user's session or
   * token in `request.headers`, and that the user owns `access.threadId`. Without it, every
   * request is allowed: serve the handler only behind your own authentication then.
   */
  authorize?: (
    request: Request,
    access: AgentAccess,
  ) =>
    Response | AgentAuthorization | undefined | Promise<Response | AgentAuthorization | undefined>;
  /**
   * Origins allowed to call the API from a browser (CORS: `Access-Control-Allow-Origin`, with
   * credentials, and the preflight). Default none: same-origin only.
   */
  corsOrigins?: readonly string[];
  /** The largest request body accepted (bytes). Default 1 000 000. */
  maxBodyBytes?: number;
  /** A comment line on an idle event stream this often (ms). Default 15 000. */
  heartbeatMs?: number;
  /** An event stream ends after this long (ms); the client reopens it from its last chunk. Default 300 000. */
  maxStreamMs?: number;
  /** How long an ended run's chunks stay readable (ms). Default 300 000. */
  retainMs?: number;
  /** Time limit on reading a body and on each thread read or write (ms). Default 30 000. */
  requestTimeoutMs?: number;
}

/** A fetch-standard handler: one `Request` in, one `Response` out. */
export type AgentRequestHandler = (request: Request) => Promise<Response>;

/**
 * Serves an {@link AgentEndpoint} (an `Agent`, or a durable engine's) over HTTP for
 * `remoteAgent({ url })` in the browser (docs/scale.md, "Running the agent on the server"; the
 * routes are in `remote/agent-wire.ts`). Fetch-standard — a `Request` in, a `Response` out — so it
 * runs in Node (`createRequestListener` of `@remix-run/node-fetch-server`, or any adapter),
 * Deno, Bun and workers; it uses no Node built-in.
 *
 * A run started here lives in this process, independent of the client: a closed tab does not
 * stop it, and any client may read its chunks again from a `sequence` (`?after=` or
 * `Last-Event-ID`) until `retainMs` after it ended. Of two resumes of one paused run, the one
 * that comes second gets `run_claimed`, as with two `Agent`s over one store.
 *
 * Errors are answered as `{ error: { code, message, details } }` with a status: 400
 * `invalid_input` (a body that is too large, not JSON or not a valid `ExecuteInput`), 404 (an
 * unknown route, or a run this handler does not hold), 409 `run_in_progress` / `run_claimed`,
 * 500 for a store failure (`history_error`) and anything unexpected (its message is not sent).
 */
export function agentRequestHandler(
  endpoint: AgentEndpoint,
  options: AgentRequestHandlerOptions = {},
): AgentRequestHandler {
  const basePath = `/${(options.basePath ?? '/').replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  const maxBodyBytes = options.maxBodyBytes ?? 1_000_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const limits = {
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxStreamMs: options.maxStreamMs ?? 300_000,
  };
  const runs = new LiveRuns(options.retainMs ?? 300_000);
  const corsOrigins = new Set(options.corsOrigins ?? []);

  const authorize = async (
    request: Request,
    access: AgentAccess,
  ): Promise<Response | AgentAuthorization> => (await options.authorize?.(request, access)) ?? {};

  async function route(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (!path.startsWith(basePath)) return notFound();
    let parts: string[];
    try {
      parts = path.slice(basePath.length).split('/').map(decodeURIComponent);
    } catch {
      return notFound(); // A malformed %-escape names no route.
    }
    const method = request.method;
    const timeLimit = () => AbortSignal.timeout(requestTimeoutMs);

    if (parts[0] === AGENT_WIRE_PATHS.runs && parts.length === 1 && method === 'POST') {
      const body = executeBodySchema.safeParse(
        await withTimeout(readJsonBody(request, maxBodyBytes), requestTimeoutMs),
      );
      if (!body.success) {
        throw new SwitchboardError('invalid_input', `Invalid run request: ${body.error.message}`, {
          details: { reason: 'invalid_execute_body' },
        });
      }
      const { handleId, input } = body.data;
      const granted = await authorize(request, { action: 'execute', threadId: input.threadId });
      if (granted instanceof Response) return granted;
      const known = runs.get(handleId);
      if (known !== undefined) {
        // The client sent its start again (the first answer was lost): the same run.
        if (known.threadId !== input.threadId) {
          throw new SwitchboardError('invalid_input', 'That handle id names another run.', {
            details: { reason: 'handle_id_taken' },
          });
        }
      } else {
        runs.add(handleId, execute(endpoint, input as ExecuteInput, granted));
      }
      const started: StartedRun = { handleId, threadId: input.threadId };
      return json(202, started);
    }

    if (parts[0] === 'runs' && parts.length === 3 && parts[1] !== undefined) {
      const run = runs.get(parts[1]);
      const action =
        parts[2] === 'chunks' && method === 'GET'
          ? 'stream'
          : parts[2] === 'stop' && method === 'POST'
            ? 'stop'
            : undefined;
      if (action === undefined) return notFound();
      if (run === undefined) {
        return error(
          404,
          new SwitchboardError(
            'invalid_input',
            'This server holds no run of that handle id: it ended long ago, or the server restarted. Load the thread to see what it stored.',
            { details: { reason: 'unknown_run' } },
          ),
        );
      }
      const granted = await authorize(request, { action, threadId: run.threadId });
      if (granted instanceof Response) return granted;
      if (action === 'stop') {
        run.handle.stop();
        return new Response(null, { status: 204 });
      }
      return new Response(chunkEventStream(run.handle, afterOf(request), limits), {
        status: 200,
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          'x-accel-buffering': 'no',
        },
      });
    }

    if (parts[0] === 'threads' && parts.length === 1 && method === 'GET') {
      const granted = await authorize(request, { action: 'list' });
      if (granted instanceof Response) return granted;
      return json(200, await endpoint.history.listThreads({ signal: timeLimit() }));
    }

    const threadId = parts[1];
    if (parts[0] === 'threads' && threadId !== undefined && threadId !== '') {
      if (parts.length === 3 && parts[2] === 'runs' && method === 'GET') {
        const granted = await authorize(request, { action: 'load', threadId });
        if (granted instanceof Response) return granted;
        return json(200, await endpoint.loadThread(threadId, { signal: timeLimit() }));
      }
      if (parts.length === 2 && method === 'PATCH') {
        const body = renameBodySchema.safeParse(
          await withTimeout(readJsonBody(request, maxBodyBytes), requestTimeoutMs),
        );
        if (!body.success) {
          throw new SwitchboardError('invalid_input', `Invalid rename: ${body.error.message}`, {
            details: { reason: 'invalid_rename_body' },
          });
        }
        const granted = await authorize(request, { action: 'rename', threadId });
        if (granted instanceof Response) return granted;
        await endpoint.history.renameThread(threadId, body.data.title, { signal: timeLimit() });
        return new Response(null, { status: 204 });
      }
      if (parts.length === 3 && parts[2] === 'branch' && method === 'GET') {
        const granted = await authorize(request, { action: 'load', threadId });
        if (granted instanceof Response) return granted;
        const selection = await endpoint.history.loadBranchSelection(threadId, {
          signal: timeLimit(),
        });
        return json(200, selection ?? null);
      }
      if (parts.length === 3 && parts[2] === 'branch' && method === 'PUT') {
        const body = branchSelectionBodySchema.safeParse(
          await withTimeout(readJsonBody(request, maxBodyBytes), requestTimeoutMs),
        );
        if (!body.success) {
          throw new SwitchboardError(
            'invalid_input',
            `Invalid branch selection: ${body.error.message}`,
            {
              details: { reason: 'invalid_branch_body' },
            },
          );
        }
        const granted = await authorize(request, { action: 'select_branch', threadId });
        if (granted instanceof Response) return granted;
        await endpoint.history.selectBranch(threadId, body.data, { signal: timeLimit() });
        return new Response(null, { status: 204 });
      }
      if (parts.length === 2 && method === 'DELETE') {
        const granted = await authorize(request, { action: 'delete', threadId });
        if (granted instanceof Response) return granted;
        await endpoint.history.deleteThread(threadId, { signal: timeLimit() });
        return new Response(null, { status: 204 });
      }
    }
    return notFound();
  }

  return async (request) => {
    const origin = request.headers.get('origin');
    const cors = origin !== null && corsOrigins.has(origin) ? origin : undefined;
    let response: Response;
    if (request.method === 'OPTIONS' && cors !== undefined) {
      response = new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
          'access-control-allow-headers':
            request.headers.get('access-control-request-headers') ?? 'content-type',
          'access-control-max-age': '600',
        },
      });
    } else {
      try {
        response = await route(request);
      } catch (thrown) {
        response = errorResponse(thrown);
      }
    }
    if (cors === undefined) return response;
    // A copy: a Response the app's `authorize` returned may have immutable headers.
    const headers = new Headers(response.headers);
    headers.set('access-control-allow-origin', cors);
    headers.set('access-control-allow-credentials', 'true');
    headers.append('vary', 'Origin');
    return new Response(response.body, { status: response.status, headers });
  };
}

/**
 * Starts or resumes the run. A resume refused because the agent runs the thread now — another
 * client's answer to the same pause came first — is `run_claimed`, as a second `Agent` would
 * end it: the client then reads the thread and follows the run that won.
 */
function execute(
  endpoint: AgentEndpoint,
  input: ExecuteInput,
  granted: AgentAuthorization,
): RunHandle {
  const withContext: ExecuteInput =
    granted.runContext === undefined ? input : { ...input, runContext: granted.runContext };
  try {
    return endpoint.execute(withContext);
  } catch (thrown) {
    if (input.resolutions !== undefined && isSwitchboardError(thrown, 'run_in_progress')) {
      throw new SwitchboardError(
        'run_claimed',
        'Another answer to this pause came first; its run is running now.',
        { cause: thrown, details: { runId: '', status: 'running' } },
      );
    }
    throw thrown;
  }
}

/**
 * The sequence a reader already has: `?after=`, else `Last-Event-ID`, else none (-1); a value
 * that is not a whole number (empty, `abc`) is none, so nothing is skipped.
 */
function afterOf(request: Request): number {
  const value =
    new URL(request.url).searchParams.get('after') ?? request.headers.get('last-event-id');
  // `Number('')` is 0: an empty value would skip chunk 0. Only digits name a sequence.
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : -1;
}

const STATUS_OF: Partial<Record<SwitchboardErrorCode, number>> = {
  invalid_input: 400,
  run_in_progress: 409,
  run_claimed: 409,
  not_paused: 409,
  unknown_call_id: 409,
  invalid_resolution: 400,
  timeout: 504,
  aborted: 499,
};

function errorResponse(thrown: unknown): Response {
  if (isSwitchboardError(thrown)) return error(STATUS_OF[thrown.code] ?? 500, thrown);
  // Not ours: its message may say anything about the server; keep it there.
  return error(500, new SwitchboardError('model_error', 'The agent server failed.'));
}

function error(status: number, failure: SwitchboardError): Response {
  const body: WireErrorBody = { error: errorToWire(failure) };
  return json(status, body);
}

function notFound(): Response {
  return error(
    404,
    new SwitchboardError('invalid_input', 'No such route of the agent API.', {
      details: { reason: 'unknown_route' },
    }),
  );
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** `promise`, or a `timeout` failure after `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new SwitchboardError('timeout', `The request body did not arrive within ${ms} ms.`, {
                details: { which: 'request', timeoutMs: ms },
              }),
            ),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
