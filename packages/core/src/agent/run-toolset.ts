import { isModelVisible } from '../mcp/apps/tool-ui-meta.ts';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { AgentOptions } from './agent-options.ts';
import { Toolset } from './toolset.ts';
import { fromStepFailure, inProcessSteps, runStep, toStepFailure } from './step-runner.ts';
import type { StepFailure, StepRunner } from './step-runner.ts';

/** What a {@link RunToolset} needs from its run. */
export interface RunToolsetSetup {
  agent: Readonly<AgentOptions>;
  runContext: unknown;
  signal: AbortSignal;
  /** Deferred tools already activated in the thread (the run state's `activatedTools`). */
  activated: Iterable<string>;
  /**
   * MCP tools the run knew before this part of it (a resumed run: its paused calls' tools), by
   * name, with their server: one no longer listed counts as removed during the run.
   */
  known?: Iterable<readonly [name: string, server: string]>;
  /** A server waits for the user to sign in: the run goes on without its tools. */
  onNeedsAuth(server: string, message: string): void;
  /** Each listing is one step (`mcp.list:<server>`); default in process. */
  steps?: StepRunner;
}

/** One server's tools as the run last read them. */
interface ServerTools {
  tools: readonly Tool[];
  /**
   * Set when the last listing failed, with the snapshot's tool list at that moment. The server
   * is not listed again until its snapshot shows another list (a sign-in, a `list_changed`), so
   * a broken server costs no request per turn.
   */
  failure?: { shown: readonly Tool[] | undefined };
}

/**
 * The tools of one run, refreshed at each turn boundary (docs/architecture.md, "The life of a
 * run") from each MCP server's current list, so a tool added while the run goes on (the server
 * sent `list_changed`, its catalogue re-listed) is offered from the next model call, and found by
 * `tool_search`.
 *
 * Cheap when nothing changed: `McpServer.listTools` answers from the catalogue's kept listing
 * (the same array, no request) unless the catalogue dropped it (`invalidate`, a reconnect) or a
 * re-listing after `list_changed` is in flight (then it waits for that); when every server's list
 * is the same array as before, the same {@link Toolset} (and its search index) is reused.
 * Activated deferred tools stay activated; a tool a server stopped listing is remembered as
 * removed, so a call of it gets an output saying so.
 */
export class RunToolset {
  readonly #setup: RunToolsetSetup;
  readonly #servers = new Map<McpServer, ServerTools>();
  /** Every name activated in this run or before it, present or not (a tool may come back). */
  readonly #activated: Set<string>;
  /** MCP tools removed during the run: name → server. */
  readonly #removed = new Map<string, string>();
  #toolset: Toolset | undefined;

  constructor(setup: RunToolsetSetup) {
    this.#setup = setup;
    this.#activated = new Set(setup.activated);
    for (const [name, server] of setup.known ?? []) this.#removed.set(name, server);
  }

  /**
   * The run's toolset now: the previous one when no server's list changed, else a new one.
   *
   * @throws What a server's first listing in this run throws (but `needs_auth`: the run goes on
   *   without that server), `aborted`, or `invalid_input` when two tools share a name. A later
   *   listing that fails keeps that server's previous tools.
   */
  async current(): Promise<Toolset> {
    const servers = this.#setup.agent.mcpServers ?? [];
    const lists = await Promise.all(
      servers.map(async (server) => ({ server, list: await this.#read(server) })),
    );
    const previous = this.#toolset;
    const unchanged = lists.every(
      ({ server, list }) => list.tools === this.#servers.get(server)?.tools,
    );
    for (const { server, list } of lists) {
      const before = this.#servers.get(server)?.tools ?? [];
      this.#servers.set(server, list);
      if (before === list.tools) continue;
      const now = new Set(list.tools.map((candidate) => candidate.name));
      for (const candidate of before) {
        if (!now.has(candidate.name)) this.#removed.set(candidate.name, server.name);
      }
    }
    if (previous !== undefined && unchanged) return previous;
    // MCP Apps 2026-01-26, "Visibility": app-only tools never reach the model.
    const tools = [
      ...(this.#setup.agent.tools ?? []),
      ...lists.flatMap(({ list }) => list.tools),
    ].filter(isModelVisible);
    for (const candidate of tools) this.#removed.delete(candidate.name);
    for (const name of previous?.activated ?? []) this.#activated.add(name);
    const toolset = new Toolset(tools, this.#activated, new Map(this.#removed));
    this.#toolset = toolset;
    return toolset;
  }

  async #read(server: McpServer): Promise<ServerTools> {
    const last = this.#servers.get(server);
    const shown = server.getSnapshot().tools;
    if (last?.failure !== undefined && last.failure.shown === shown) return last;
    try {
      return { tools: await this.#list(server) };
    } catch (error) {
      if (this.#setup.signal.aborted) throw error;
      const needsAuth = isSwitchboardError(error, 'needs_auth');
      if (last === undefined && !needsAuth) throw error;
      // A server waiting for the user to sign in does not fail the run: it goes on without that
      // server's tools, and the UI offers "Connect" (the chunk, and the server status).
      if (needsAuth && last?.failure === undefined) {
        this.#setup.onNeedsAuth(server.name, error.message);
      }
      return { tools: last?.tools ?? [], failure: { shown } };
    }
  }

  /**
   * One listing step. The step's result is the listed names (tools carry functions, which no
   * journal keeps): a replayed step takes the tools of those names from the server's listing
   * (its catalogue or schema cache), so a replayed run offers the model the tools it had.
   */
  async #list(server: McpServer): Promise<readonly Tool[]> {
    const options = { signal: this.#setup.signal, runContext: this.#setup.runContext };
    const steps = this.#setup.steps ?? inProcessSteps;
    if (steps === inProcessSteps) return await server.listTools(options);
    let listed: readonly Tool[] = [];
    let thrown: unknown;
    const step = await runStep(
      steps,
      `mcp.list:${server.name}`,
      async (): Promise<{ names: string[] } | { failure: StepFailure }> => {
        try {
          listed = await server.listTools(options);
          return { names: listed.map((candidate) => candidate.name) };
        } catch (error) {
          thrown = error;
          return { failure: toStepFailure(error) };
        }
      },
    );
    if ('failure' in step.value) throw thrown ?? fromStepFailure(step.value.failure);
    if (!step.replayed) return listed;
    const names = new Set(step.value.names);
    return (await server.listTools(options)).filter((candidate) => names.has(candidate.name));
  }
}
