import type { Client, Tool as McpTool } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/** Most pages one listing follows before it gives up (20 per page → 2 000 tools). */
export const MAX_TOOL_PAGES = 100;

/** A full listing: every page's tools, and the server's cache hint if it sent one. */
export interface ToolListing {
  tools: McpTool[];
  /** Server-sent `ttlMs` of the first page (2026-07-28 caching), in ms. */
  ttlMs?: number;
}

/**
 * Lists every tool, following `nextCursor` page by page (spec: Pagination). A cursor seen twice
 * or more than {@link MAX_TOOL_PAGES} pages stop with an `invalid_response` error instead of
 * looping forever. Each page's request is bounded by `timeoutMs` (the SDK's request timeout,
 * which fails it with a `RequestTimeout` error, classified as `timeout`).
 */
export async function listAllTools(
  client: Client,
  where: string,
  signal: AbortSignal | undefined,
  timeoutMs?: number,
): Promise<ToolListing> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
      ...(signal === undefined ? {} : { signal }),
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      cacheMode: 'bypass',
    });
    tools.push(...result.tools);
    const hint = (result as { ttlMs?: unknown }).ttlMs;
    if (page === 0 && typeof hint === 'number' && hint >= 0) ttlMs = hint;
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') {
      return ttlMs === undefined ? { tools } : { tools, ttlMs };
    }
    if (seen.has(next)) {
      throw new SwitchboardError(
        'invalid_response',
        `${where} repeated the tools/list cursor "${next.slice(0, 40)}"; stopped to avoid a loop.`,
      );
    }
    seen.add(next);
    cursor = next;
  }
  throw new SwitchboardError(
    'invalid_response',
    `${where} sent more than ${MAX_TOOL_PAGES} pages of tools; stopped to avoid a loop.`,
  );
}
