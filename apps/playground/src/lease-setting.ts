/** The smallest lease the page accepts from its URL (ms): shorter ones would write constantly. */
const MIN_LEASE_MS = 1_000;

/**
 * The run lease (`AgentOptions.leaseMs`) asked for in the page URL's query, e.g. `?leaseMs=3000`:
 * how long a run's claim on its thread lasts without renewal, so how soon a reloaded page
 * recovers a run the old page left in the middle of a tool call. `undefined` (the agent's
 * default, 30 s) without the parameter or for a value that is not a whole number of at least
 * 1 000. The end-to-end tests use a short lease so that a reload recovers within seconds; a
 * person may use it to try recovery by hand.
 */
export function leaseMsFromQuery(search: string): number | undefined {
  const raw = new URLSearchParams(search).get('leaseMs');
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  const leaseMs = Number(raw);
  return leaseMs >= MIN_LEASE_MS ? leaseMs : undefined;
}
