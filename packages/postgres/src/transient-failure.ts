/**
 * SQLSTATEs after which PostgreSQL has rolled the transaction back (or never began it), so the
 * same call may simply be made again: `40001` serialization_failure, `40P01` deadlock_detected,
 * `55P03` lock_not_available (`lock_timeout`), `57014` query_canceled (`statement_timeout`),
 * `53300` too_many_connections, `57P03` cannot_connect_now (starting or in recovery).
 */
const ROLLED_BACK_STATES = new Set(['40001', '40P01', '55P03', '57014', '53300', '57P03']);

/**
 * True when a failure of the store left nothing written and a later attempt may succeed, so a
 * caller that can wait (a durable engine's step retry) should try again rather than end the run:
 * no pooled connection within the time limit (the pool was busy or the server slow to accept),
 * or a statement PostgreSQL refused and rolled back for contention or a time limit. A failure
 * whose effect is unknown (the connection dropped mid-transaction or during `COMMIT`) is not
 * transient: trying again could write twice.
 *
 * @param phase `connect` for a failure while borrowing a connection from the pool (nothing was
 *   sent), `statement` for one while the transaction ran.
 */
export function isTransientPostgresFailure(
  error: unknown,
  phase: 'connect' | 'statement',
): boolean {
  if (phase === 'connect') return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ROLLED_BACK_STATES.has(code);
}
