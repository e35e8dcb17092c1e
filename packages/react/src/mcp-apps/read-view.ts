import { MCP_APP_MIME_TYPE, SwitchboardError, type McpServer } from '@switchboard/core';

/** A view's document and its declared `_meta.ui.csp`, as `resources/read` returned them. */
export interface McpAppViewResource {
  html: string;
  /** `_meta.ui.csp` as declared; sanitised where it is used (`buildViewCsp`). */
  csp: unknown;
}

/** The largest view document read, in bytes (8 MiB): views inline their scripts and styles. */
export const MAX_VIEW_BYTES = 8 * 1024 * 1024;

/**
 * Reads a `ui://` view from its server (MCP Apps 2026-01-26, "UI Resource Format": `text` or
 * base64 `blob`, MIME type `text/html;profile=mcp-app`).
 *
 * @throws SwitchboardError `invalid_response` when the resource is not an MCP App view; any
 *   or when the document is over {@link MAX_VIEW_BYTES}; any failure of `McpServer.readResource`.
 */
export async function readView(
  server: McpServer,
  resourceUri: string,
  signal?: AbortSignal,
): Promise<McpAppViewResource> {
  if (!resourceUri.startsWith('ui://')) {
    throw new SwitchboardError('invalid_input', `Not a ui:// resource: ${resourceUri}`);
  }
  const contents = await server.readResource(resourceUri, {
    maxBytes: MAX_VIEW_BYTES,
    ...(signal === undefined ? {} : { signal }),
  });
  const content = contents.find((entry) => entry.uri === resourceUri) ?? contents[0];
  const mimeType = content?.mimeType?.replace(/\s+/g, '').toLowerCase();
  if (content === undefined || mimeType !== MCP_APP_MIME_TYPE) {
    throw new SwitchboardError(
      'invalid_response',
      `${resourceUri} is not an MCP App view (mimeType ${content?.mimeType ?? 'missing'}).`,
    );
  }
  if ('omitted' in content) {
    throw new SwitchboardError(
      'invalid_response',
      `${resourceUri} is ${content.size} bytes, more than a view may be (${MAX_VIEW_BYTES}).`,
    );
  }
  const html =
    'text' in content
      ? content.text
      : new TextDecoder().decode(Uint8Array.from(atob(content.blob), (char) => char.charCodeAt(0)));
  const meta = content._meta as { ui?: { csp?: unknown } } | undefined;
  return { html, csp: meta?.ui?.csp };
}

/**
 * Whether a view may be shown with this proxy: its origin must differ from the page's (MCP Apps
 * 2026-01-26, "Sandbox proxy" rule 1). A proxy on the host's own origin could reach the host's
 * DOM and storage, so the view falls back to text instead.
 */
export function proxyOriginProblem(proxyUrl: string | URL, hostOrigin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(proxyUrl, hostOrigin);
  } catch {
    return 'The sandbox proxy URL is not valid.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'The sandbox proxy must be served over http(s).';
  }
  if (url.origin === hostOrigin) {
    return 'The sandbox proxy is on this page’s own origin; it must be served from another origin.';
  }
  return undefined;
}
