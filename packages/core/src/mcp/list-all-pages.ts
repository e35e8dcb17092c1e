import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * Most pages one listing fetches before it gives up (at 20 a page, 2 000 items). Applies to
 * `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` alike.
 */
export const MAX_LIST_PAGES = 100;

/** How much of a server's cursor an error message quotes. */
const CURSOR_EXCERPT = 40;

/** A page of any paginated MCP list (spec: Pagination). */
export interface ListPage {
  nextCursor?: string | null | undefined;
}

/** What {@link listAllPages} says in its errors. */
export interface ListAllPagesOptions {
  /** The list method, e.g. `resources/list`, as the errors name it. */
  method: string;
  /** What the pages hold, e.g. `resources`, as the errors name it. */
  noun: string;
  /** The server, as errors name it. */
  where: string;
  /** Takes the secrets this client sent out of server text (the quoted cursor). */
  scrub?: (text: string) => string;
}

/**
 * Fetches every page of a paginated list, one request per page (spec: Pagination), so the
 * request count equals the pages fetched. A cursor the server already sent stops the listing at
 * once, and so does a listing longer than {@link MAX_LIST_PAGES} pages: both as
 * `invalid_response`, naming the cursor (at most its first 40 characters). Not the SDK's own
 * walk (`client.listResources()` without a cursor): it stops only at its `listMaxPages` (64),
 * with an `SdkError`, and never sees a repeated cursor.
 *
 * @param fetchPage One request for the page after `cursor` (`undefined`: the first page).
 * @returns The pages in order (the first one carries the server's cache hints, if any).
 * @throws `SwitchboardError` `invalid_response` on a repeated cursor or too many pages; else
 *   what `fetchPage` throws, unclassified.
 */
export async function listAllPages<Page extends ListPage>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  options: ListAllPagesOptions,
): Promise<Page[]> {
  const scrub = options.scrub ?? ((text: string) => text);
  const pages: Page[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await fetchPage(cursor);
    pages.push(result);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return pages;
    if (seen.has(next)) {
      throw new SwitchboardError(
        'invalid_response',
        `${options.where} repeated the ${options.method} cursor "${excerpt(scrub(next))}" after ${page + 1} pages; stopped to avoid a loop.`,
      );
    }
    seen.add(next);
    cursor = next;
  }
  throw new SwitchboardError(
    'invalid_response',
    `${options.where} sent more than ${MAX_LIST_PAGES} pages of ${options.noun} (next cursor "${excerpt(scrub(cursor ?? ''))}"); stopped to avoid a loop.`,
  );
}

function excerpt(cursor: string): string {
  return cursor.length > CURSOR_EXCERPT ? `${cursor.slice(0, CURSOR_EXCERPT)}…` : cursor;
}
