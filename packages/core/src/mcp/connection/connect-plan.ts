import type { DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { McpConnectionPrior, McpTransportKind } from './connection-info.ts';
import type { SessionTransportKind } from './mcp-session.ts';
import type { HandshakeRecord } from './session-fetch.ts';

/*
 * The decisions of connecting, as pure functions of what is known (the SDK's
 * `probeClassifier.ts` cut): which transport, which era verdict, whether `auto` falls back to
 * legacy SSE, whether a failed operation is retried. `McpConnection` does the I/O around them.
 */

/** Statuses of an `initialize`/`server/discover` POST after which `auto` tries legacy SSE. */
export const FALLBACK_STATUSES: readonly number[] = [400, 404, 405];

/**
 * Why a failed operation is retried once on a new session: `session-expired` (HTTP 404 while a
 * session id was in use), `stale-prior` (the cached era verdict no longer fits the server).
 */
export type RetryReason = 'session-expired' | 'stale-prior';

/**
 * Which transport the next session uses: `custom` with a transport factory, the configured one,
 * or in `auto` mode what worked before (`learned`), else `auto` (probe Streamable HTTP first).
 */
export function transportKind(input: {
  custom: boolean;
  configured: McpTransportKind;
  learned: McpConnectionPrior['transport'] | undefined;
}): SessionTransportKind | 'auto' {
  if (input.custom) return 'custom';
  if (input.configured !== 'auto') return input.configured;
  return input.learned === 'streamable-http' || input.learned === 'sse' ? input.learned : 'auto';
}

/**
 * The era verdict to connect with, if one is known: legacy SSE is always the 2025 era; otherwise
 * what an earlier connect (or the cache) learnt. A modern verdict needs its discover result.
 */
export function eraPrior(
  kind: SessionTransportKind,
  known: Pick<McpConnectionPrior, 'protocolEra' | 'discover'> | undefined,
): PriorDiscovery | undefined {
  if (kind === 'sse') return { kind: 'legacy' };
  if (known?.protocolEra === 'legacy') return { kind: 'legacy' };
  if (known?.protocolEra === 'modern' && isDiscoverResult(known.discover)) {
    return { kind: 'modern', discover: known.discover };
  }
  return undefined;
}

/** True when the next connect would probe: the transport (`auto`) or the era is unknown. */
export function needsDiscovery(
  kind: SessionTransportKind | 'auto',
  known: Pick<McpConnectionPrior, 'protocolEra' | 'discover'> | undefined,
): boolean {
  return kind === 'auto' || eraPrior(kind, known) === undefined;
}

/**
 * Whether `auto` tries legacy SSE on the same URL after Streamable HTTP failed with `error`:
 * only when the handshake POST itself was answered 400, 404 or 405 (not a later request).
 */
export function shouldFallBackToSse(error: unknown, handshake: HandshakeRecord): boolean {
  const status =
    error instanceof SwitchboardError && error.code === 'http_status'
      ? error.details?.status
      : undefined;
  return (
    typeof status === 'number' &&
    FALLBACK_STATUSES.includes(status) &&
    handshake.failedStatus === status
  );
}

/** What {@link retryReason} looks at: the failure and the session it happened on. */
export interface FailedAttempt {
  error: unknown;
  /** The connection was closed, or the caller aborted: never retried. */
  stopped: boolean;
  /** Requests of the session carried a session id. */
  hadSessionId: boolean;
  /** The session connected from a cached era verdict. */
  usedPrior: boolean;
  /** An operation already succeeded on the session. */
  succeeded: boolean;
}

/** Why a failed operation may be retried once on a new session, if it may. */
export function retryReason(attempt: FailedAttempt): RetryReason | undefined {
  const { error } = attempt;
  if (attempt.stopped || !(error instanceof SwitchboardError)) return undefined;
  const status = error.code === 'http_status' ? error.details?.status : undefined;
  if (status === 404 && attempt.hadSessionId) return 'session-expired';
  if (
    attempt.usedPrior &&
    !attempt.succeeded &&
    (error.code === 'unsupported_protocol_version' || status === 400)
  ) {
    return 'stale-prior';
  }
  return undefined;
}

/** A connect failure that means the cached era verdict no longer fits the server. */
export function isServerChangedError(error: unknown): boolean {
  return (
    error instanceof SwitchboardError &&
    (error.code === 'unsupported_protocol_version' ||
      (error.code === 'http_status' && error.details?.status === 400))
  );
}

/** Just enough of a `DiscoverResult` to hand to `connect({ prior })`. */
function isDiscoverResult(value: unknown): value is DiscoverResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { supportedVersions?: unknown }).supportedVersions)
  );
}
