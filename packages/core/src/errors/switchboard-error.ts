import type {
  AuthorizationFailureReason,
  SwitchboardErrorCode,
  SwitchboardErrorDetails,
} from '../vocabulary/error-codes.ts';

export type { AuthorizationFailureReason, SwitchboardErrorCode, SwitchboardErrorDetails };

/**
 * The `details` type of an error of code `C`: its {@link SwitchboardErrorDetails} entry
 * (`never` for a code that carries none), or any record while the code is not known
 * statically (the plain `SwitchboardError`), so that code copying another error's details
 * still type-checks.
 */
export type SwitchboardErrorDetailsOf<C extends SwitchboardErrorCode> = [
  SwitchboardErrorCode,
] extends [C]
  ? Readonly<Record<string, unknown>>
  : C extends keyof SwitchboardErrorDetails
    ? Readonly<SwitchboardErrorDetails[C]>
    : never;

/**
 * Marks every `SwitchboardError`, so that {@link isSwitchboardError} recognises one made by
 * another copy of this package (two bundles, or a dependency's own copy), where `instanceof`
 * fails. `Symbol.for` is the same symbol in every copy; the AI SDK does the same.
 */
const marker = Symbol.for('switchboard.error');

/**
 * The one error type Switchboard throws. `code` names the failure class; the native `cause`
 * carries the underlying error when there is one; `details` carries machine-readable facts
 * typed per code ({@link SwitchboardErrorDetails}): narrow with {@link isSwitchboardError}.
 *
 * Messages never contain header values or tokens: callers may log them as they are.
 *
 * ```ts
 * if (isSwitchboardError(error, 'http_status') && error.details?.status === 401) signIn();
 * ```
 *
 * @typeParam C - The code, when known statically (all codes by default).
 * @typeParam D - The type of `details`; leave it to its default.
 */
export class SwitchboardError<
  out C extends SwitchboardErrorCode = SwitchboardErrorCode,
  // Always its default: a parameter of its own (not a member type computed from `C`) keeps the
  // class covariant in `C`, so `SwitchboardError<'timeout'>` is a `SwitchboardError`.
  out D = SwitchboardErrorDetailsOf<C>,
> extends Error {
  /** The failure class, stable across releases. */
  readonly code: C;
  /** Extra machine-readable facts, such as `{ status: 404 }` for `http_status`. */
  readonly details: D | undefined;

  constructor(
    code: C,
    message: string,
    options?: { cause?: unknown; details?: SwitchboardErrorDetailsOf<C> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.code = code;
    this.details = options?.details as D | undefined; // D is SwitchboardErrorDetailsOf<C>
    // Not enumerable: invisible to JSON, spreads and deep equality, like `cause`.
    Object.defineProperty(this, marker, { value: true });
  }
}

/**
 * True when `error` is a {@link SwitchboardError} of the given `code` (its `details` then narrow
 * to that code's), or of any code when none is given. Unlike `instanceof`, it also recognises an
 * error from another copy of `@switchboard/core`.
 */
export function isSwitchboardError<C extends SwitchboardErrorCode>(
  error: unknown,
  code: C,
): error is SwitchboardError<C>;
export function isSwitchboardError(error: unknown): error is SwitchboardError;
export function isSwitchboardError(error: unknown, code?: SwitchboardErrorCode): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { [marker]?: unknown })[marker] !== true) return false;
  return code === undefined || (error as { code?: unknown }).code === code;
}
