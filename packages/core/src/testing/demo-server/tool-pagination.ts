import { DemoProtocolError, INVALID_PARAMS } from './demo-tools.ts';
import type { DemoToolDefinition } from './demo-tools.ts';

/** One page of `tools/list`. `nextCursor` is absent on the last page. */
export interface ToolPage {
  tools: DemoToolDefinition[];
  nextCursor?: string;
}

const CURSOR_PREFIX = 'demo-tools:';

function encodeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const offset = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new DemoProtocolError(INVALID_PARAMS, `Invalid cursor: ${cursor}`);
  }
  return offset;
}

/**
 * Slices the tool list into pages of `pageSize`. The cursor is opaque to clients (base64url of
 * an offset). A cursor past the end gives an empty last page.
 *
 * @throws DemoProtocolError -32602 for a cursor this server did not issue.
 */
export function listToolsPage(
  tools: readonly DemoToolDefinition[],
  cursor: string | undefined,
  pageSize: number,
): ToolPage {
  const offset = cursor === undefined ? 0 : decodeCursor(cursor);
  const end = offset + pageSize;
  const page: ToolPage = { tools: tools.slice(offset, end) };
  if (end < tools.length) page.nextCursor = encodeCursor(end);
  return page;
}
