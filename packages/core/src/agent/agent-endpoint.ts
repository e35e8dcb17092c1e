import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { ExecuteInput } from './agent-options.ts';
import type { AppModelContextInput } from './app-model-context.ts';
import type { AppToolCallHandle, AppToolCallInput } from './app-tool-call.ts';
import type { RunHandle } from './run-result.ts';

/**
 * The threads an agent keeps, as a UI lists and edits them: the part of a {@link HistoryStore}
 * that a thread picker uses (every `HistoryStore` is one). A remote agent's is the server's
 * store, over HTTP.
 */
export type AgentThreads = Pick<
  HistoryStore,
  | 'listThreads'
  | 'renameThread'
  | 'deleteThread'
  | 'selectBranch'
  | 'loadBranchSelection'
  | 'attachments'
>;

/**
 * What a UI needs of an agent, wherever the agent runs (docs/architecture.md, "The agent
 * seam"). `Agent` is one, running in this page or process; `remoteAgent({ url })` is one whose
 * runs happen on a server (`agentRequestHandler` from `@switchboard/core/server`), and a durable
 * engine may provide another. `AgentChat`, `useAgent`, `useThreads` and
 * `<SwitchboardProvider agent>` take any `AgentEndpoint`.
 *
 * The contract every implementation keeps, as `Agent` does:
 * - `execute` returns at once; the handle's `chunks` replays every chunk from the first to each
 *   reader, numbered by `sequence`, and ends after exactly one terminal chunk (`run.completed`,
 *   `run.paused`, `run.failed`, `run.cancelled`) — or, when the run could not start at all
 *   (a refused resume of another client's run: `run_claimed`), with none; `result()` never
 *   rejects.
 * - Of two resumes of one paused run, one proceeds and the other's result is `failed` with
 *   code `run_claimed`, having run nothing.
 * - `stop()` ends the run `cancelled` and every call of it gets exactly one output.
 */
export interface AgentEndpoint {
  /**
   * The thread's run rows, oldest first (`[]` for an unknown thread), a run whose client went
   * away recovered first (see `Agent.loadThread`).
   *
   * @throws SwitchboardError `history_error` when the store fails; `aborted` when `signal`
   *   aborts; a remote endpoint also `connection_refused`, `http_status`, `timeout`.
   */
  loadThread(threadId: string, options?: { signal?: AbortSignal }): Promise<RunRecord[]>;
  /**
   * Starts a run (`messages`), or resumes the thread's paused run (`resolutions`), and returns
   * its handle at once (see `Agent.execute`).
   *
   * @throws SwitchboardError `invalid_input` for input it refuses before starting anything.
   */
  execute(input: ExecuteInput): RunHandle;
  /** The agent's threads: listing, renaming, deleting (`useThreads`), the selected branch, attached files (absent for a remote agent). */
  readonly history: AgentThreads;
  /**
   * The MCP servers the page holds for this agent: their sign-in state (`needs-auth`), their
   * tool lists (which server a stored call went to) and `authorize()`. Absent or empty for an
   * agent whose MCP connections live elsewhere (a server-run agent): the chat then shows no
   * server facts and `connect` refuses.
   */
  readonly mcpServers?: readonly McpServer[] | undefined;
  /**
   * Makes a tool call an MCP Apps view of this page asked for, recorded in its thread (see
   * `Agent.callToolFromApp`). Absent for an agent whose MCP connections live elsewhere: the
   * chat then answers a view's call with a `tool_not_found` error output.
   */
  callToolFromApp?(input: AppToolCallInput): AppToolCallHandle;
  /**
   * Keeps a view's `ui/update-model-context` for the model's next turn (see
   * `Agent.updateModelContextFromApp`). Absent as {@link callToolFromApp} is.
   */
  updateModelContextFromApp?(input: AppModelContextInput): Promise<'stored' | 'held'>;
}
