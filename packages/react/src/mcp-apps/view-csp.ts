/**
 * The domains a `ui://` resource declares in `_meta.ui.csp` (MCP Apps 2026-01-26, "UI Resource
 * Format"). Each entry is an origin such as `https://api.example.com` or
 * `https://*.example.com`.
 */
export interface McpAppCspDomains {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/**
 * The Content-Security-Policy a view runs under, built from its declared domains (MCP Apps
 * 2026-01-26, "Host Behavior" and "Sandbox proxy" step 5). It starts from the spec's restrictive
 * default (`default-src 'none'`; scripts and styles inline only; images and media `data:`;
 * `connect-src 'none'`, `frame-src 'none'`, `base-uri 'self'`, `object-src 'none'`) and only adds
 * declared origins that pass {@link sanitizeCspSource}'s check; anything else is dropped, never
 * widened into a wildcard. `form-action 'none'` keeps forms from posting data out.
 *
 * Self-contained on purpose (no helper outside its body): the sandbox proxy page embeds this
 * function's source, so the proxy and the host build the very same policy
 * (`sandboxProxyHtml`).
 */
export function buildViewCsp(declared: unknown): string {
  const MAX_SOURCES = 32;
  /** `scheme://host[:port]`, host optionally `*.`-prefixed; no path, quotes, spaces, `;` or `,`. */
  const ORIGIN =
    /^(https?|wss?):\/\/(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:[0-9]{1,5})?$/i;
  const list = (key: string): string[] => {
    if (typeof declared !== 'object' || declared === null) return [];
    const value = (declared as Record<string, unknown>)[key];
    if (!Array.isArray(value)) return [];
    const kept: string[] = [];
    for (const entry of value) {
      if (typeof entry !== 'string') continue;
      const source = entry.trim().replace(/\/$/, '');
      if (!ORIGIN.test(source)) continue;
      const lowered = source.toLowerCase();
      if (!kept.includes(lowered)) kept.push(lowered);
      if (kept.length === MAX_SOURCES) break;
    }
    return kept;
  };
  const connect = list('connectDomains');
  const resources = list('resourceDomains');
  const frames = list('frameDomains');
  const baseUris = list('baseUriDomains');
  const join = (sources: string[]): string => sources.join(' ');
  const directives = [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${join(resources)}`,
    `style-src 'self' 'unsafe-inline' ${join(resources)}`,
    `img-src 'self' data: ${join(resources)}`,
    `font-src 'self' ${join(resources)}`,
    `media-src 'self' data: ${join(resources)}`,
    `connect-src ${connect.length === 0 ? "'none'" : join(connect)}`,
    `frame-src ${frames.length === 0 ? "'none'" : join(frames)}`,
    `base-uri ${baseUris.length === 0 ? "'self'" : join(baseUris)}`,
    "object-src 'none'",
    "form-action 'none'",
  ];
  return directives.map((directive) => directive.trim()).join('; ');
}

/**
 * The declared domains as the host approved them (what {@link buildViewCsp} keeps), for the
 * `sandbox-resource-ready` notification and logs (the spec's "Audit Trail").
 */
export function sanitizeCspDomains(declared: unknown): McpAppCspDomains {
  const policy = buildViewCsp(declared);
  const sources = (directive: string): string[] => {
    const found = policy.split('; ').find((entry) => entry.startsWith(`${directive} `));
    return (found ?? '')
      .split(' ')
      .slice(1)
      .filter((source) => source.includes('://'));
  };
  const result: McpAppCspDomains = {};
  const connect = sources('connect-src');
  const resources = sources('script-src');
  const frames = sources('frame-src');
  const baseUris = sources('base-uri');
  if (connect.length > 0) result.connectDomains = connect;
  if (resources.length > 0) result.resourceDomains = resources;
  if (frames.length > 0) result.frameDomains = frames;
  if (baseUris.length > 0) result.baseUriDomains = baseUris;
  return result;
}

/**
 * The view document with its policy: a `<meta http-equiv="Content-Security-Policy">` placed
 * before anything the server wrote (after a leading doctype), so it applies before the first
 * script. A policy the view adds itself can only narrow this one: the browser enforces every
 * policy of a document.
 */
export function withCspMeta(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  if (doctype === null) return meta + html;
  return doctype[0] + meta + html.slice(doctype[0].length);
}
