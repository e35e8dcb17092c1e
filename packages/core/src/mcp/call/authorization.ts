import type { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { ToolContext } from '../../tools/tool-types.ts';
import { refusedByUser } from '../../tools/tool-errors.ts';
import type { Resolution, ToolInterruptResult } from '../../vocabulary/interrupts.ts';
import type { McpCallScope } from './call-scope.ts';
import { FRESH_CALL, type AuthorizationResumeState, type ResumeOutcome } from './resume-state.ts';

/*
 * OAuth (401, or a 403 step-up that needs consent): in an agent run the call ends in an
 * `authorization` interrupt; the user signs in (`McpServer.authorize()`), and the call is made
 * again with the new token. Direct calls throw `needs_auth` instead.
 */

/** Sign-ins one call asks for before it gives up (the server keeps refusing fresh tokens). */
const MAX_AUTHORIZATION_ATTEMPTS = 3;

/** After the user signed in the call is made again; a refusal ends it. */
export function resumeAuthorization(
  state: AuthorizationResumeState,
  resolution: Resolution,
  scope: McpCallScope,
): ResumeOutcome {
  if (resolution.action !== 'approve') {
    return {
      settled: refusedByUser(
        resolution.action,
        (verb) => `The user ${verb} signing in to ${scope.where}; the call was not made.`,
      ),
    };
  }
  return { plan: { ...FRESH_CALL, authorizationAttempts: state.attempts } };
}

/**
 * The interrupt asking the user to sign in before `toolName` can run, or `undefined` when the
 * call must fail with `error` instead (a direct call, or sign-ins exhausted).
 */
export function interruptForAuthorization(
  error: SwitchboardError,
  attempts: number,
  toolName: string,
  scope: McpCallScope,
  context: ToolContext,
): ToolInterruptResult | undefined {
  scope.onNeedsAuth(error);
  if (!scope.authorizationInterrupts || attempts >= MAX_AUTHORIZATION_ATTEMPTS) return undefined;
  return context.interrupt(
    {
      mode: 'authorization',
      message: `${scope.where} needs you to sign in before ${toolName} can run.`,
    },
    { kind: 'authorization', attempts: attempts + 1 } satisfies AuthorizationResumeState,
  );
}
