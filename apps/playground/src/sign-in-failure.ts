import { isSwitchboardError } from '@switchboard/core';
import { messageOf } from './message-of.ts';

/** A sentence for a failed sign-in (never a token: the errors carry none). */
export function describeSignInFailure(error: unknown): string {
  if (isSwitchboardError(error, 'needs_auth')) {
    switch (error.details?.['reason']) {
      case 'closed':
        return 'The sign-in window was closed before you finished. Connect to try again.';
      case 'denied':
        return `Sign-in was refused. ${error.message}`;
      case 'timeout':
        return 'The sign-in took too long. Connect to try again.';
      case 'state_mismatch':
        return 'The answer from the sign-in page did not match this request, so it was ignored. Connect to try again.';
      default:
        return `Sign-in did not finish: ${error.message}`;
    }
  }
  if (isSwitchboardError(error, 'aborted')) return 'Sign-in was cancelled.';
  return `Sign-in failed: ${messageOf(error)}`;
}
