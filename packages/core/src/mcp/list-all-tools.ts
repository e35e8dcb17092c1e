import type { Client, ListToolsResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { listAllPages, MAX_LIST_PAGES } from './list-all-pages.ts';

/** Most pages one tool listing fetches before it gives up (see {@link MAX_LIST_PAGES}). */
export const MAX_TOOL_PAGES = MAX_LIST_PAGES;

/** A full listing: every page's tools, and the server's cache hints if it sent them. */
export interface ToolListing {
  tools: McpTool[];
  /** Server-sent `ttlMs` of the first page (2026-07-28 caching), in ms. */
  ttlMs?: number;
  /** Server-sent `cacheScope` of the first page (2026-07-28 caching). */
  cacheScope?: 'public' | 'private';
}

/**
 * The SDK's SEP-2243 filter (2026-07-28 Streamable HTTP, "Schema Extension": a client MUST
 * exclude a tool whose `x-mcp-header` declarations are invalid). The SDK runs it on every page
 * its public `listTools` returns, but keeps it private; see {@link fetchPage} for why we fetch
 * pages without `listTools`.
 */
interface ExcludesInvalidHeaderTools {
  _excludeInvalidXMcpHeaderTools?: (result: ListToolsResult) => void;
}

/**
 * Lists every tool, one `tools/list` request per page, under the guard of
 * {@link listAllPages} (a repeated cursor or more than {@link MAX_TOOL_PAGES} pages stop it as
 * `invalid_response`, naming the cursor). Each page's request is bounded by `timeoutMs` (the
 * SDK's request timeout, which fails it with a `RequestTimeout` error, classified as
 * `timeout`). A server that does not declare the `tools` capability has no tools (no request),
 * as in the SDK's `listTools`.
 *
 * @param scrub Takes the secrets this client sent out of server text (the quoted cursor).
 * @throws `SwitchboardError` `invalid_response` on a repeated cursor or too many pages; else what
 *   the request throws, unclassified.
 */
export async function listAllTools(
  client: Client,
  where: string,
  signal: AbortSignal | undefined,
  timeoutMs?: number,
  scrub: (text: string) => string = (text) => text,
): Promise<ToolListing> {
  if (client.getServerCapabilities()?.tools === undefined) return { tools: [] };
  const pages = await listAllPages((cursor) => fetchPage(client, cursor, signal, timeoutMs), {
    method: 'tools/list',
    noun: 'tools',
    where,
    scrub,
  });
  const first = pages[0];
  const listing = first === undefined ? { tools: [] } : cacheHints(first);
  return { ...listing, tools: pages.flatMap((page) => page.tools) };
}

/**
 * One page, one request. Not `client.listTools()`: called without a cursor it walks every page
 * itself (up to its `listMaxPages`, 64, before an `SdkError`), so our guard would never see a
 * repeated cursor; only the cursor-less first page needs this, but every page goes the same way.
 * The SDK's response cache is not read or written (as with `cacheMode: 'bypass'`): our schema
 * cache is the one that holds listings.
 */
async function fetchPage(
  client: Client,
  cursor: string | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<ListToolsResult> {
  const result = await client.request(
    { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
    {
      ...(signal === undefined ? {} : { signal }),
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    },
  );
  (client as unknown as ExcludesInvalidHeaderTools)._excludeInvalidXMcpHeaderTools?.(result);
  return result;
}

function cacheHints(result: ListToolsResult): ToolListing {
  const hints: ToolListing = { tools: [] };
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  if (typeof ttlMs === 'number' && ttlMs >= 0) hints.ttlMs = ttlMs;
  if (cacheScope === 'public' || cacheScope === 'private') hints.cacheScope = cacheScope;
  return hints;
}
