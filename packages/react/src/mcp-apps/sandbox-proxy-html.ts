import { buildViewCsp, withCspMeta } from './view-csp.ts';

/**
 * The sandbox proxy page (MCP Apps 2026-01-26, "Sandbox proxy"), as one static HTML document.
 * Serve it from an origin that is not the app's (a second port, a subdomain, a CDN; see
 * docs/mcp-apps.md) with `Content-Security-Policy: frame-ancestors <your app's origin>`, and
 * point `McpAppView`'s `proxyUrl` at it.
 *
 * What the page does, and why:
 * - It accepts messages from its parent only when `event.source` is the parent window and
 *   `event.origin` is the host origin named in its `?host=` parameter, which must also be the
 *   embedding page's origin (`location.ancestorOrigins`, else `document.referrer`) and must
 *   differ from its own origin: it refuses to run otherwise.
 * - It says `ui/notifications/sandbox-proxy-ready` to that origin only, then takes exactly one
 *   `ui/notifications/sandbox-resource-ready`, from the host only: a view that posts one is
 *   ignored (the flaw fixed in AI SDK PR #15995), and so is any `ui/notifications/sandbox-*`
 *   message from the view.
 * - The view gets an inner frame with `sandbox="allow-scripts"` and nothing else (a
 *   server-supplied `allow-same-origin` or any other token is dropped), its HTML by `srcdoc`, and
 *   the policy of `buildViewCsp` from the declared domains, as the document's first element.
 *   The view's origin is therefore opaque: no cookies, storage, IndexedDB or DOM of the proxy or
 *   the host.
 * - It relays every other JSON-RPC message both ways: to the host with the host's origin as the
 *   target; to the view with `'*'`, the only target an opaque origin can be reached by, the
 *   recipient being pinned by the frame's own `contentWindow`.
 * - The page itself sets no `default-src` policy: a `srcdoc` document inherits its parent's
 *   policy, which would then override the view's declared domains (MCP Inspector #1565).
 */
export function sandboxProxyHtml(): string {
  const script = `(() => {
  const buildViewCsp = ${buildViewCsp.toString()};
  const withCspMeta = ${withCspMeta.toString()};
  const SANDBOX_PREFIX = 'ui/notifications/sandbox-';
  const params = new URLSearchParams(location.search);
  const hostOrigin = params.get('host');
  const ancestors = location.ancestorOrigins;
  const embedder = ancestors && ancestors.length > 0
    ? ancestors[0]
    : (document.referrer ? new URL(document.referrer).origin : null);
  const refuse = (reason) => {
    document.body.textContent = 'MCP App sandbox refused: ' + reason;
  };
  if (window.parent === window) return refuse('not framed');
  if (!hostOrigin || hostOrigin === 'null') return refuse('no host origin');
  if (hostOrigin === location.origin) return refuse('the host and the sandbox share an origin');
  if (embedder !== null && embedder !== hostOrigin) return refuse('framed by another origin');
  let view = null;
  let loaded = false;
  const isRpc = (message) => typeof message === 'object' && message !== null && message.jsonrpc === '2.0';
  const isSandboxMethod = (message) => typeof message.method === 'string' && message.method.startsWith(SANDBOX_PREFIX);
  const load = (resource) => {
    if (typeof resource !== 'object' || resource === null || typeof resource.html !== 'string') return;
    loaded = true;
    view = document.createElement('iframe');
    view.setAttribute('sandbox', 'allow-scripts');
    view.setAttribute('title', 'MCP App view');
    view.style.cssText = 'border:0;width:100%;height:100%;display:block';
    view.srcdoc = withCspMeta(resource.html, buildViewCsp(resource.csp));
    document.body.replaceChildren(view);
  };
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!isRpc(message)) return;
    if (event.source === window.parent && event.origin === hostOrigin) {
      if (message.method === SANDBOX_PREFIX + 'resource-ready') {
        if (!loaded) load(message.params);
        return;
      }
      if (isSandboxMethod(message) || view === null || view.contentWindow === null) return;
      view.contentWindow.postMessage(message, '*');
      return;
    }
    if (view !== null && event.source === view.contentWindow && event.origin === 'null') {
      if (isSandboxMethod(message)) return;
      window.parent.postMessage(message, hostOrigin);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: SANDBOX_PREFIX + 'proxy-ready', params: {} }, hostOrigin);
})();`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>MCP App sandbox</title>
<style>html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; background: transparent; }</style>
</head>
<body>
<script>${script}</script>
</body>
</html>
`;
}
