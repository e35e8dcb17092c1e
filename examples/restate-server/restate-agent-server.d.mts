/** What the worker and the front share (see restate-agent-server.mjs). */
interface SharedOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** PostgreSQL, e.g. `postgres://postgres@127.0.0.1:5433/postgres`: the threads. */
  databaseUrl: string;
  /** Redis, e.g. `redis://127.0.0.1:6380`: the runs' chunks. */
  redisUrl: string;
  /** Restate's admin API, e.g. `http://127.0.0.1:9070`. */
  adminUrl: string;
}

/** Options of {@link startRestateWorker}. */
export interface RestateWorkerOptions extends SharedOptions {
  /** Default 9080; 0 picks a free port. */
  port?: number;
  /** The address Restate calls the worker at. Default `http://<host>:<port>`. */
  advertisedUrl?: string;
  /** An OpenAI-compatible Chat Completions base URL. */
  modelBaseUrl: string;
  /** The model's key (stays on the worker). Default `scripted`. */
  apiKey?: string;
  /** The model's name. Default `scripted`. */
  model?: string;
  /** An MCP server (Streamable HTTP) whose tools the agent uses (prefixed `demo_`). */
  mcpUrl: string;
}

/** Options of {@link startRestateFront}. */
export interface RestateFrontOptions extends SharedOptions {
  /** Default 3010; 0 picks a free port. */
  port?: number;
  /** Restate's ingress, e.g. `http://127.0.0.1:8080`. */
  ingressUrl: string;
  /** Pages on other origins allowed to call the API (CORS). Default none. */
  corsOrigins?: string[];
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
}

/** A running worker or front. */
export interface RunningServer {
  /** The worker's deployment address, or the front's API base (`remoteAgent({ url })`). */
  url: string;
  /** Stops listening, ends every connection, closes the stores (and the worker's MCP session). */
  close(): Promise<void>;
}

/**
 * Starts the worker (the agent as a Restate deployment) and registers it with Restate.
 *
 * @throws Error when the port is taken or Restate's admin API refuses the deployment.
 */
export function startRestateWorker(options: RestateWorkerOptions): Promise<RunningServer>;

/** Starts the front (the agent's HTTP API for browsers) and resolves once it listens. */
export function startRestateFront(options: RestateFrontOptions): Promise<RunningServer>;
