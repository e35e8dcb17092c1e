import type { UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import type { ToolContext } from '../../tools/tool-types.ts';
import { refusedByUser, toolError } from '../../tools/tool-errors.ts';
import type { Resolution, ToolInterruptResult } from '../../vocabulary/interrupts.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';
import type { McpCallScope } from './call-scope.ts';
import { FRESH_CALL, type ResumeOutcome, type UrlRequiredResumeState } from './resume-state.ts';

/*
 * Error -32042 (URL elicitation required): the server refuses the call until the user has
 * visited a URL (e.g. to connect a third-party account). The call ends in an interrupt showing
 * the URL; once the user went there, it is made again.
 */

/** After the user visited the URL the call is made again; a refusal ends it. */
export function resumeUrlRequired(
  state: UrlRequiredResumeState,
  resolution: Resolution,
): ResumeOutcome {
  if (resolution.action !== 'approve') {
    return {
      settled: refusedByUser(
        resolution.action,
        (verb) =>
          `The user ${verb} opening the URL the server asked for; the call was not completed.`,
      ),
    };
  }
  return { plan: { ...FRESH_CALL, shownUrls: state.shownUrls } };
}

/**
 * The interrupt for the first URL of `error` not shown yet for this call; an error output when
 * every one was (the server keeps asking: stop rather than loop).
 */
export function interruptForUrlRequired(
  error: UrlElicitationRequiredError,
  shownUrls: readonly string[],
  scope: McpCallScope,
  context: ToolContext,
): ToolOutput | ToolInterruptResult {
  const wanted = error.elicitations.find((elicitation) => !shownUrls.includes(elicitation.url));
  if (wanted === undefined) {
    return toolError(
      -32042,
      `${scope.where} asked again for a URL the user already visited; stopping to avoid a loop.`,
    );
  }
  return context.interrupt(
    {
      mode: 'url',
      url: wanted.url,
      message: scope.connection.scrubber.scrub(wanted.message),
      ...(wanted.elicitationId === undefined ? {} : { elicitationId: wanted.elicitationId }),
    },
    {
      kind: 'url-required',
      url: wanted.url,
      shownUrls: [...shownUrls, wanted.url],
    } satisfies UrlRequiredResumeState,
  );
}
