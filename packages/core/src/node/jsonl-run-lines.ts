import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { RunRecord } from '../history/history-store.ts';
import type { Item } from '../vocabulary/items.ts';

/**
 * The lines of a JSONL thread file (see `JsonlHistoryStore`): how a saved row becomes a line,
 * and how lines become rows again.
 *
 * - A full line is the row itself: `JSON.stringify(run)` (the only kind older versions wrote).
 * - A delta line is the row without `items`, plus `delta: { base, baseItems, baseVersion,
 *   items }`: the row is the row built by the line that starts at byte `base` of the file, with
 *   `items` appended, and this line's other fields. `baseItems` and `baseVersion` (0 when the
 *   base has no `version`) must match that row too. A delta line has no `items` array, so older
 *   readers skip it instead of taking its few items for the whole row.
 */

/** A row as read from a thread file, and the byte offset where its last line starts. */
export interface StoredRow {
  run: RunRecord;
  line: number;
}

/** The extension a delta line carries (see the module comment). */
interface Delta {
  base: number;
  baseItems: number;
  baseVersion: number;
  items: Item[];
}

/**
 * Checks what JSON Lines need of a row before anything is written.
 *
 * @throws SwitchboardError `invalid_input` when an id is not a string or a time not finite.
 */
export function checkRun(run: RunRecord): void {
  if (typeof run.runId !== 'string' || typeof run.threadId !== 'string') {
    throw new SwitchboardError('invalid_input', 'A run needs string runId and threadId.');
  }
  if (!Number.isFinite(run.createdAt) || !Number.isFinite(run.updatedAt)) {
    throw new SwitchboardError(
      'invalid_input',
      `Run ${run.runId}: createdAt and updatedAt must be finite numbers (ms since the epoch).`,
    );
  }
}

/**
 * The line (newline included) that stores `run`: a delta line on `stored` (the row as this file
 * holds it now) when `run.items` starts with exactly `stored`'s items, else a full line.
 *
 * @throws SwitchboardError `invalid_input` as {@link checkRun}, or when the run is not
 *   JSON-serialisable.
 */
export function runLine(run: RunRecord, stored: StoredRow | undefined): string {
  checkRun(run);
  try {
    if (stored === undefined || Object.hasOwn(run, 'delta') || !extendsItems(stored, run)) {
      return `${JSON.stringify(run)}\n`;
    }
    const { items, ...header } = run;
    const baseItems = stored.run.items.length;
    const delta: Delta = {
      base: stored.line,
      baseItems,
      baseVersion: stored.run.version ?? 0,
      items: items.slice(baseItems),
    };
    return `${JSON.stringify({ ...header, delta })}\n`;
  } catch (error) {
    throw new SwitchboardError('invalid_input', `Run ${run.runId} is not JSON-serialisable.`, {
      cause: error,
    });
  }
}

/**
 * Applies one line (without its newline) that starts at byte `offset` to `rows`: a full line
 * replaces its run's row; a delta line extends it when its base is the row's current line (same
 * offset, item count and version). Blank, malformed and foreign lines, and delta lines whose
 * base is missing or another line (a damaged file), are skipped, so the row stays as its last
 * line that could be read: never a row with items missing. Returns whether the line was applied.
 */
export function applyRunLine(
  rows: Map<string, StoredRow>,
  text: string,
  offset: number,
  threadId: string,
): boolean {
  if (text.trim() === '') return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Partial<RunRecord> & { delta?: Partial<Delta> };
  if (
    typeof fields.runId !== 'string' ||
    fields.threadId !== threadId ||
    typeof fields.createdAt !== 'number' ||
    typeof fields.updatedAt !== 'number' ||
    typeof fields.status !== 'string'
  ) {
    return false;
  }
  if (Array.isArray(fields.items)) {
    rows.set(fields.runId, { run: value as RunRecord, line: offset });
    return true;
  }
  const { delta, ...header } = fields;
  if (
    typeof delta !== 'object' ||
    delta === null ||
    typeof delta.base !== 'number' ||
    typeof delta.baseItems !== 'number' ||
    typeof delta.baseVersion !== 'number' ||
    !Array.isArray(delta.items)
  ) {
    return false;
  }
  const base = rows.get(fields.runId);
  if (
    base === undefined ||
    base.line !== delta.base ||
    base.run.items.length !== delta.baseItems ||
    (base.run.version ?? 0) !== delta.baseVersion
  ) {
    return false;
  }
  const run = { ...header, items: base.run.items.concat(delta.items) } as RunRecord;
  rows.set(fields.runId, { run, line: offset });
  return true;
}

/** Whether `run.items` begins with exactly the items of `stored` (as JSON would write them). */
function extendsItems(stored: StoredRow, run: RunRecord): boolean {
  const base = stored.run.items;
  if (!Array.isArray(run.items) || run.items.length < base.length) return false;
  for (let index = 0; index < base.length; index++) {
    if (!sameJson(base[index], run.items[index])) return false;
  }
  return true;
}

/**
 * Whether `given` serialises to the JSON that `stored` (parsed from JSON) came from. Errs on the
 * side of "no" (then a full line is written, which is always right): values with a prototype
 * other than `Object`'s, or a `toJSON`, count as different.
 */
function sameJson(stored: unknown, given: unknown): boolean {
  if (stored === given) return true;
  if (typeof stored !== 'object' || stored === null) return false;
  if (typeof given !== 'object' || given === null) return false;
  if (Array.isArray(stored)) {
    if (!Array.isArray(given) || given.length !== stored.length) return false;
    return stored.every((value, index) => sameJson(value, given[index]));
  }
  const prototype: unknown = Object.getPrototypeOf(given);
  if (Array.isArray(given) || (prototype !== Object.prototype && prototype !== null)) return false;
  const givenRecord = given as Record<string, unknown>;
  if (typeof givenRecord['toJSON'] === 'function') return false;
  const storedRecord = stored as Record<string, unknown>;
  let written = 0;
  for (const key of Object.keys(givenRecord)) {
    const value = givenRecord[key];
    // JSON leaves out these properties.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    written += 1;
    if (!Object.hasOwn(storedRecord, key) || !sameJson(storedRecord[key], value)) return false;
  }
  return written === Object.keys(storedRecord).length;
}
