/**
 * `@switchboard/react/mcp-apps`: host MCP Apps views (`io.modelcontextprotocol/ui`, SEP-1865,
 * stable 2026-01-26) in the page, over the in-page MCP client (docs/mcp-apps.md). A subpath of
 * its own so that `@modelcontextprotocol/ext-apps` (the `AppBridge`) stays out of apps that
 * do not render views.
 */
export { McpAppView, type McpAppViewProps } from './mcp-app-view.tsx';
export type { McpAppThread } from './mcp-app-thread.ts';
export { sandboxProxyHtml } from './sandbox-proxy-html.ts';
export {
  buildViewCsp,
  sanitizeCspDomains,
  withCspMeta,
  type McpAppCspDomains,
} from './view-csp.ts';
export { proxyOriginProblem } from './read-view.ts';
