/** Options of {@link startAgentServer} (see agent-server.mjs). */
export interface AgentServerOptions {
  /** Default 3010; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** An OpenAI-compatible Chat Completions base URL. */
  modelBaseUrl: string;
  /** The model's key (stays on this server). Default `scripted`. */
  apiKey?: string;
  /** The model's name. Default `scripted`. */
  model?: string;
  /** An MCP server (Streamable HTTP) whose tools the agent uses (prefixed `demo_`). */
  mcpUrl: string;
  /** Where the threads are kept (JSONL files). */
  directory: string;
  /** Pages on other origins allowed to call the API (CORS). Default none. */
  corsOrigins?: string[];
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
}

/** A running agent server. */
export interface AgentServer {
  /** The agent's API base, e.g. `http://127.0.0.1:3010/agent/`: `remoteAgent({ url })`. */
  url: string;
  /** Stops listening, closes every connection and the MCP session. */
  close(): Promise<void>;
}

/** Starts the agent server and resolves once it listens. */
export function startAgentServer(options: AgentServerOptions): Promise<AgentServer>;
