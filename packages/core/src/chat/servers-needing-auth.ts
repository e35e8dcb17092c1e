import type { AgentEndpoint } from '../agent/agent-endpoint.ts';
import type { ChatSnapshot } from './chat-snapshot.ts';

/** The names of `agent`'s MCP servers whose status is `needs-auth`, in the agent's order. */
export function serversNeedingAuth(agent: AgentEndpoint): string[] {
  return (agent.mcpServers ?? [])
    .filter((server) => server.getSnapshot().status === 'needs-auth')
    .map((server) => server.name);
}

/**
 * Calls `onChange` now and on every change of one of `agent`'s MCP servers (read the names with
 * {@link serversNeedingAuth}). Returns the unsubscribe function.
 */
export function watchMcpServers(agent: AgentEndpoint, onChange: () => void): () => void {
  const unsubscribes = (agent.mcpServers ?? []).map((server) => server.subscribe(onChange));
  onChange();
  return () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}

/**
 * `snapshot` showing `names` as its servers needing auth; `snapshot` itself when it already
 * shows the same names (most server changes do not touch the list, and must not notify).
 */
export function withServersNeedingAuth(
  snapshot: ChatSnapshot,
  names: readonly string[],
): ChatSnapshot {
  const current = snapshot.serversNeedingAuth;
  if (names.length === current.length && names.every((name, i) => name === current[i])) {
    return snapshot;
  }
  return { ...snapshot, serversNeedingAuth: names };
}
