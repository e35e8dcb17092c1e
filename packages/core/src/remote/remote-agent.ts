import type { AgentEndpoint, AgentThreads } from '../agent/agent-endpoint.ts';
import type { ExecuteInput } from '../agent/agent-options.ts';
import { isUserMessageInput } from '../agent/attachment-input.ts';
import { toMessageItems } from '../agent/message-items.ts';
import type { RunHandle } from '../agent/run-result.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { BranchSelection, RunRecord, ThreadSummary } from '../history/history-store.ts';
import { AGENT_WIRE_PATHS, type RemoteExecuteBody } from './agent-wire.ts';
import { RemoteRunHandle, type RemoteStreamPolicy } from './remote-run-handle.ts';
import { remoteJson, remoteRequest, type RemoteConnection } from './remote-request.ts';

/** Options of {@link remoteAgent}. */
export interface RemoteAgentOptions {
  /**
   * The URL `agentRequestHandler` (`@switchboard/core/server`) serves the agent at, e.g.
   * `https://example.com/agent/` (the API's paths are resolved under it; a missing final `/`
   * is added). Relative URLs resolve against the page's address.
   */
  url: string | URL;
  /** Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * Headers for every request, e.g. `{ authorization: 'Bearer …' }` — or a function called
   * before each request (a token that refreshes). Cookies go as `fetch` sends them.
   */
  headers?:
    Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Time limit for each request until the server's response headers (ms). Default 30 000. */
  timeoutMs?: number;
  /**
   * A run's event stream silent for this long is reopened from its last chunk (ms). Default
   * 45 000: three of the server's default heartbeats.
   */
  idleTimeoutMs?: number;
  /**
   * Failed attempts in a row (server unreachable, stream broken, a gateway's 5xx) before a run's
   * handle gives up and ends `failed` with the last error. Default 5.
   */
  maxReconnects?: number;
  /** The wait before the first new attempt (ms), doubled each time up to 5 s. Default 250. */
  reconnectDelayMs?: number;
}

/**
 * An {@link AgentEndpoint} whose runs happen on a server, reached over HTTP and server-sent
 * events (docs/scale.md, "Running the agent on the server"): pass it where an `Agent` goes —
 * `useAgent(remote)`, `<SwitchboardProvider agent={remote}>`, `new AgentChat(remote)`.
 *
 * ```ts
 * const agent = remoteAgent({ url: '/agent/', headers: () => ({ authorization: `Bearer ${token()}` }) });
 * ```
 *
 * What differs from an `Agent` in the page: it holds no MCP servers (`mcpServers` is absent,
 * sign-ins happen on the server); `execute` refuses `fallbackModels` and `runContext`
 * (`invalid_input`: the server's agent has its models, and its `authorize` hook gives the run
 * context); a refusal the server decides (`run_in_progress`, `run_claimed` when another client
 * answered a pause first, its validation of the input) ends the run's result `failed` with that
 * code instead of throwing. When the server stays unreachable for `maxReconnects` attempts a
 * run's handle ends `failed` (`connection_refused`, `connection_lost`, `timeout`) while the
 * server's run may go on: reloading the thread shows what it stored.
 */
export function remoteAgent(options: RemoteAgentOptions): AgentEndpoint {
  return new RemoteAgent(options);
}

class RemoteAgent implements AgentEndpoint {
  readonly history: AgentThreads;
  readonly #connection: RemoteConnection;
  readonly #policy: RemoteStreamPolicy;

  constructor(options: RemoteAgentOptions) {
    const url = new URL(
      options.url,
      (globalThis as { location?: { href: string } }).location?.href,
    );
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    const headers = options.headers;
    this.#connection = {
      baseUrl: url,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      headers: async () => new Headers(typeof headers === 'function' ? await headers() : headers),
      timeoutMs: positive(options.timeoutMs, 30_000, 'timeoutMs'),
    };
    this.#policy = {
      idleTimeoutMs: positive(options.idleTimeoutMs, 45_000, 'idleTimeoutMs'),
      maxReconnects: Math.floor(positive(options.maxReconnects, 5, 'maxReconnects', true)),
      reconnectDelayMs: positive(options.reconnectDelayMs, 250, 'reconnectDelayMs', true),
    };
    this.history = new RemoteThreads(this.#connection);
  }

  async loadThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    return await remoteJson<RunRecord[]>(this.#connection, AGENT_WIRE_PATHS.threadRuns(threadId), {
      method: 'GET',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /**
   * Starts or resumes a run on the server; see {@link remoteAgent}.
   *
   * @throws SwitchboardError `invalid_input` when there are neither messages nor resolutions,
   *   or with `fallbackModels` or `runContext`.
   */
  execute(input: ExecuteInput): RunHandle {
    if (input.fallbackModels !== undefined || input.runContext !== undefined) {
      throw new SwitchboardError(
        'invalid_input',
        "A remote agent runs with the server's models and run context: fallbackModels and runContext are set on the server.",
        { details: { reason: 'remote_agent_option' } },
      );
    }
    const body: Omit<RemoteExecuteBody, 'handleId'> = {
      input: {
        threadId: input.threadId ?? crypto.randomUUID(),
        ...(input.modelRetry === undefined ? {} : { modelRetry: input.modelRetry }),
      },
    };
    if (input.resolutions === undefined) {
      const messages = Array.isArray(input.messages) ? input.messages : [input.messages];
      if (messages.some(isUserMessageInput)) {
        throw new SwitchboardError(
          'invalid_input',
          'A remote agent does not carry attached files yet: send text and resources only.',
          { details: { reason: 'remote_agent_option' } },
        );
      }
      body.input.messages = toMessageItems(messages);
      if (input.parentRunId !== undefined) body.input.parentRunId = input.parentRunId;
    } else {
      if (input.resolutions.length === 0) {
        throw new SwitchboardError('invalid_input', 'execute() needs at least one resolution.');
      }
      body.input.resolutions = input.resolutions;
    }
    return new RemoteRunHandle(this.#connection, this.#policy, body, input.signal);
  }
}

/** The server's thread list, over HTTP. */
class RemoteThreads implements AgentThreads {
  readonly #connection: RemoteConnection;

  constructor(connection: RemoteConnection) {
    this.#connection = connection;
  }

  async listThreads(options: { signal?: AbortSignal } = {}): Promise<ThreadSummary[]> {
    return await remoteJson<ThreadSummary[]>(this.#connection, AGENT_WIRE_PATHS.threads, {
      method: 'GET',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  async renameThread(
    threadId: string,
    title: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await remoteRequest(this.#connection, AGENT_WIRE_PATHS.thread(threadId), {
      method: 'PATCH',
      body: { title },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  async selectBranch(
    threadId: string,
    selection: BranchSelection,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await remoteRequest(this.#connection, AGENT_WIRE_PATHS.threadBranch(threadId), {
      method: 'PUT',
      body: { leafRunId: selection.leafRunId, selectedAt: selection.selectedAt },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  async loadBranchSelection(
    threadId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BranchSelection | undefined> {
    const selection = await remoteJson<BranchSelection | null>(
      this.#connection,
      AGENT_WIRE_PATHS.threadBranch(threadId),
      {
        method: 'GET',
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
    return selection ?? undefined;
  }

  async deleteThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await remoteRequest(this.#connection, AGENT_WIRE_PATHS.thread(threadId), {
      method: 'DELETE',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }
}

function positive(value: number | undefined, fallback: number, name: string, zero = false): number {
  if (value === undefined) return fallback;
  if (!(zero ? value >= 0 : value > 0) || !Number.isFinite(value)) {
    throw new SwitchboardError(
      'invalid_input',
      `remoteAgent: ${name} must be a ${zero ? 'non-negative' : 'positive'} number of ${name.endsWith('Ms') ? 'ms' : 'attempts'}.`,
      {
        details: { reason: name },
      },
    );
  }
  return value;
}
