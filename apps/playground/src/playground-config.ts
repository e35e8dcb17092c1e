import { leaseMsFromQuery } from './lease-setting.ts';

/** Where the playground's local servers run. */
export interface PlaygroundConfig {
  /** The everything server's MCP endpoint (Streamable HTTP, 2025 era). */
  everythingUrl: string;
  /**
   * The demo MCP server's base URL, without a path: `/modern/mcp` (2026-07-28), `/legacy/mcp`
   * (2025 era), `/legacy/sse` (legacy HTTP+SSE) and `/control/faults`.
   */
  demoUrl: string;
  /**
   * The demo server's OAuth-protected endpoint (`${demoUrl}/protected/mcp`): the demo tools plus
   * `reset_demo_data`, behind the local test authorization server.
   */
  protectedDemoUrl: string;
  /** The scripted model server's OpenAI-compatible base URL (ends in `/v1`). */
  modelBaseUrl: string;
  /**
   * The MCP Apps sandbox proxy page, on a second loopback port (another origin than the page's;
   * servers/sandbox-proxy-server.ts). Its origin must differ from the page's or views fall back
   * to text.
   */
  sandboxProxyUrl: string;
  /** The agent's run lease in ms (`?leaseMs=` in the page URL, see `leaseMsFromQuery`). */
  leaseMs?: number;
}

/**
 * The URLs the page server injected (Vite `define`, see servers/playground-servers.ts), or the
 * default ports of `npm start` when the page was built without them.
 */
const demoUrl = import.meta.env.VITE_SWITCHBOARD_DEMO_URL ?? 'http://127.0.0.1:3003';

export const playgroundConfig: PlaygroundConfig = {
  everythingUrl: import.meta.env.VITE_SWITCHBOARD_MCP_URL ?? 'http://127.0.0.1:3001/mcp',
  demoUrl,
  protectedDemoUrl:
    import.meta.env.VITE_SWITCHBOARD_DEMO_PROTECTED_URL ?? `${demoUrl}/protected/mcp`,
  modelBaseUrl: import.meta.env.VITE_SWITCHBOARD_MODEL_BASE_URL ?? 'http://127.0.0.1:3002/v1',
  sandboxProxyUrl:
    import.meta.env.VITE_SWITCHBOARD_SANDBOX_PROXY_URL ?? 'http://127.0.0.1:3005/sandbox.html',
  ...leaseFromPageUrl(),
  ...proxyFromPageUrl(),
};

/**
 * `?sandboxProxy=<url>` overrides the proxy page (the e2e test points it at the page's own
 * origin to see the view refused).
 */
function proxyFromPageUrl(): { sandboxProxyUrl?: string } {
  const value = new URLSearchParams(globalThis.location?.search ?? '').get('sandboxProxy');
  return value === null || value === '' ? {} : { sandboxProxyUrl: value };
}

function leaseFromPageUrl(): { leaseMs?: number } {
  const leaseMs = leaseMsFromQuery(globalThis.location?.search ?? '');
  return leaseMs === undefined ? {} : { leaseMs };
}

/** The scripted model server's own URL (no `/v1`), which the Anthropic SDK wants. */
export function modelServerUrl(config: PlaygroundConfig): string {
  return config.modelBaseUrl.replace(/\/v1\/?$/, '');
}
