/** The headers of an error answer, as the provider SDKs expose them (a fetch `Headers`). */
export interface HeaderLookup {
  get(name: string): string | null;
}

const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * How long a provider asked the client to wait before trying again, in ms, or `undefined` when
 * it did not say (or said something unreadable). Reads `retry-after-ms` (milliseconds, sent by
 * OpenAI and Anthropic) first, then `Retry-After` as delta-seconds or an HTTP date (RFC 9110
 * §10.2.3); a date in the past is 0. The caller caps the result (`ModelRetryPolicy.maxDelayMs`).
 *
 * @param headers The error answer's headers (absent for a transport failure).
 * @param now The current time in ms since the epoch, for an HTTP date. Default `Date.now()`.
 */
export function retryAfterMs(
  headers: HeaderLookup | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get('retry-after-ms')?.trim();
  if (milliseconds !== undefined && DELTA_SECONDS.test(milliseconds)) {
    return Math.round(Number(milliseconds));
  }
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (DELTA_SECONDS.test(value)) return Math.round(Number(value) * 1000);
  // An HTTP date names its day and month (`Wed, 02 Dec 2026 03:00:05 GMT`); `Date.parse` alone
  // would read a bare number such as `-1` as a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
