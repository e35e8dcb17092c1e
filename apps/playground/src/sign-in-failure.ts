import { describeError, isSwitchboardError } from '@switchboard/core';

/**
 * A sentence for a failed sign-in (never a token: the errors carry none): `describeError`'s, so
 * that a sign-in failure reads the same here as in every `<ErrorNotice>`.
 */
export function describeSignInFailure(error: unknown): string {
  if (isSwitchboardError(error, 'aborted')) return 'Sign-in was cancelled.';
  const { sentence } = describeError(error);
  return isSwitchboardError(error, 'needs_auth') ? sentence : `Sign-in failed. ${sentence}`;
}
