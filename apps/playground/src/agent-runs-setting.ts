/**
 * Where the playground's agent runs: in this page (an `Agent` with the page's model settings and
 * MCP servers), or on a server (`remoteAgent(url)`: the server's agent, model and MCP servers;
 * e.g. `examples/agent-server`). Kept in this browser's localStorage, like the model settings.
 */
export type AgentRunsSetting = { where: 'page' } | { where: 'server'; url: string };

/** The localStorage key the setting is kept under. */
export const agentRunsStorageKey = 'switchboard.playground.agent-runs';

/** The agent runs in the page unless the person chose a server. */
export const defaultAgentRunsSetting: AgentRunsSetting = { where: 'page' };

/** Reads the setting; anything missing, malformed or unreadable gives the default. */
export function loadAgentRunsSetting(): AgentRunsSetting {
  let stored: unknown;
  try {
    const raw = globalThis.localStorage?.getItem(agentRunsStorageKey) ?? null;
    if (raw === null) return defaultAgentRunsSetting;
    stored = JSON.parse(raw);
  } catch {
    return defaultAgentRunsSetting;
  }
  if (typeof stored !== 'object' || stored === null) return defaultAgentRunsSetting;
  const { where, url } = stored as { where?: unknown; url?: unknown };
  if (where === 'server' && typeof url === 'string' && validateServerUrl(url) === undefined) {
    return { where: 'server', url };
  }
  return defaultAgentRunsSetting;
}

/**
 * Writes the setting to localStorage.
 *
 * @throws Error when the browser refuses to store it (storage disabled or full).
 */
export function saveAgentRunsSetting(setting: AgentRunsSetting): void {
  globalThis.localStorage.setItem(agentRunsStorageKey, JSON.stringify(setting));
}

/** Why `url` cannot be an agent server's URL, or undefined when it can. */
export function validateServerUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "The agent server's URL is not a valid URL, e.g. http://127.0.0.1:3010/agent/.";
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return "The agent server's URL must start with http:// or https://.";
  }
  return undefined;
}
