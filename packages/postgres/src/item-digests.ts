import { createHash } from 'node:crypto';

/**
 * Chained digests of a run's items, as JSON: `digests[n]` stands for the first `n` items
 * (`digests[0]` is `''`). A run row keeps the digest of the items it holds, so a write can tell
 * "the same items plus new ones" from "different items" without reading the stored items back:
 * appends then write only the new item rows.
 */
export function itemDigests(itemsJson: readonly string[]): string[] {
  const digests = [''];
  let previous = '';
  for (const json of itemsJson) {
    previous = createHash('sha256').update(previous).update('\n').update(json).digest('hex');
    digests.push(previous);
  }
  return digests;
}
