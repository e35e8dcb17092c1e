import { OUTCOME_UNKNOWN } from '../agent/recover-run.ts';
import { SwitchboardError, type SwitchboardErrorCode } from '../errors/switchboard-error.ts';
import type { BranchSelection, RunRecord } from '../history/history-store.ts';
import { branchPath, branchPositions, selectedLeaf } from '../history/run-tree.ts';
import type { AgentEndpoint } from '../agent/agent-endpoint.ts';
import type { ChatToolCallPart } from './chat-message.ts';
import { branchMessages } from './branch-messages.ts';
import { fillServers, markWaiting } from './chat-reducer.ts';
import type { ChatSnapshot } from './chat-snapshot.ts';

/**
 * What the snapshot shows of stored rows: the messages, the paused run's interrupts, and the
 * status (`running-elsewhere` while the last run is `running`). A run the chat `followed` that
 * ended `failed` shows its error, as the tab that ran it does; not a recovered one (code
 * `outcome_unknown`): its call cards say what is unknown and the thread continues, and it then
 * looks the same whether the lease expired before or after this chat loaded the thread.
 * Tool cards get their server from `serverOf` (see {@link serverOfCall}).
 *
 * Only the selected branch is shown (`selection`, see `selectedLeaf`; docs/conversations.md,
 * "Branches"), and the paused run's interrupts only while it is on that branch: a pause on a
 * branch the user switched away from stays stored and answerable when switched back.
 */
export function storedView(
  runs: readonly RunRecord[],
  followed: boolean,
  serverOf: (part: ChatToolCallPart) => string | undefined = () => undefined,
  selection?: BranchSelection,
): Pick<ChatSnapshot, 'messages' | 'interrupts' | 'status' | 'error'> {
  const last = runs.at(-1);
  const path = branchPath(runs, selectedLeaf(runs, selection));
  const interrupts =
    last?.status === 'paused' && path.at(-1) === last
      ? (last.state?.pending ?? []).map((pending) => pending.interrupt)
      : [];
  const held = new Map(interrupts.map((interrupt) => [interrupt.callId, interrupt]));
  const messages = fillServers(
    markWaiting(branchMessages(path, branchPositions(runs, path)), interrupts),
    (part) => held.get(part.callId)?.server ?? serverOf(part),
  );
  if (last?.status === 'running') return { messages, interrupts, status: 'running-elsewhere' };
  if (
    followed &&
    last?.status === 'failed' &&
    last.error !== undefined &&
    last.error.code !== OUTCOME_UNKNOWN
  ) {
    const error = new SwitchboardError(last.error.code as SwitchboardErrorCode, last.error.message);
    return { messages, interrupts, status: 'error', error };
  }
  return { messages, interrupts, status: interrupts.length > 0 ? 'paused' : 'idle' };
}

/** What of `runs` the snapshot shows (a lease renewal alone changes nothing shown). */
export function rowsKey(runs: readonly RunRecord[]): string {
  const last = runs.at(-1);
  return [runs.length, last?.runId, last?.status, last?.items.length].join(':');
}

/**
 * The server of a stored tool call, which the stored items do not keep (a `function_call` item
 * is in the provider's shape: call id, provider-facing name, arguments). The sources, most
 * reliable first: the paused run's interrupt of that call (written with the server when the
 * call was held, used by {@link storedView}); then `agent`'s MCP servers' current tool lists,
 * since provider-facing names are stable across sessions (docs/architecture.md, "Tool names")
 * and are what the items name. A tool no connected server lists (yet) shows no server; the
 * chat fills it in when a server's list arrives (`AgentChat`, `fillServers`). A local tool has
 * none.
 */
export function serverOfCall(agent: AgentEndpoint): (part: ChatToolCallPart) => string | undefined {
  const servers = new Map<string, string>();
  for (const server of agent.mcpServers ?? []) {
    for (const tool of server.getSnapshot().tools ?? []) {
      if (!servers.has(tool.name)) servers.set(tool.name, tool.server);
    }
  }
  return (part) => servers.get(part.toolName);
}
