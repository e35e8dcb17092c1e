import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';

export type { SwitchboardErrorCode };

/**
 * The one error type Switchboard throws (DESIGN.md §7). `code` names the failure class; the
 * native `cause` carries the underlying error when there is one.
 *
 * Messages never contain header values or tokens: callers may log them as they are.
 */
export class SwitchboardError extends Error {
  /** The failure class, stable across releases. */
  readonly code: SwitchboardErrorCode;
  /** Extra machine-readable facts, such as `{ status: 404 }` for `http_status`. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: SwitchboardErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.code = code;
    this.details = options?.details;
  }
}

/** True when `error` is a {@link SwitchboardError}, optionally of the given `code`. */
export function isSwitchboardError(
  error: unknown,
  code?: SwitchboardErrorCode,
): error is SwitchboardError {
  return error instanceof SwitchboardError && (code === undefined || error.code === code);
}
