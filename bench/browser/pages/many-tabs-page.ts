/**
 * Browser page of the many-tabs benchmark: one "playground-like" tab of the demo server — a
 * client per endpoint (2026-07-28 and 2025 era), tools listed and resources listed, so that the
 * tab holds what a playground tab holds (the `list_changed` streams, the 2025 GET stream). The
 * Node side opens eight of these in one browser context and times a tool call in the 8th tab
 * against the 1st.
 */
import { mcpServer, type McpServer } from '@switchboard/core';

/** What the Node side passes to {@link Window.benchOpenTab}. */
export interface ManyTabsOptions {
  modernUrl: string;
  legacyUrl: string;
  /** `McpServerOptions.shareStreamsAcrossTabs`. */
  share: boolean;
  /** Time limit of every request, in ms. */
  timeoutMs: number;
}

declare global {
  interface Window {
    benchReady?: boolean;
    /** Opens the tab's clients; resolves once both listed their tools (rejects on a limit). */
    benchOpenTab?: (options: ManyTabsOptions) => Promise<void>;
    /** One `get_weather` call on the 2026-07-28 endpoint; resolves with its duration in ms. */
    benchCall?: () => Promise<number>;
    benchCloseTab?: () => Promise<void>;
  }
}

let servers: McpServer[] = [];

window.benchOpenTab = async ({ modernUrl, legacyUrl, share, timeoutMs }) => {
  const common = { shareStreamsAcrossTabs: share, timeoutMs };
  servers = [
    mcpServer({ url: modernUrl, name: 'demo', ...common }),
    mcpServer({ url: legacyUrl, name: 'demo-2025', ...common }),
  ];
  await Promise.all(servers.map((server) => server.listTools()));
  // The playground's resource panel lists resources too, which opens the 2026-07-28 stream for
  // resource and prompt list changes.
  await servers[0]?.listResources();
};

window.benchCall = async () => {
  const server = servers[0];
  if (server === undefined) throw new Error('benchOpenTab first');
  const start = performance.now();
  const output = await server.callTool('get_weather', { city: 'Oslo' });
  const ms = performance.now() - start;
  if (output.isError === true) throw new Error(`get_weather failed: ${output.text}`);
  return ms;
};

window.benchCloseTab = async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
};

window.benchReady = true;
