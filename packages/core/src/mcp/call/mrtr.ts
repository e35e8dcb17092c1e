import type { ToolContext } from '../../tools/tool-types.ts';
import { toolError } from '../../tools/tool-errors.ts';
import type { Resolution, ToolInterruptResult } from '../../vocabulary/interrupts.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';
import { scrubRequest, type McpCallScope } from './call-scope.ts';
import { nextElicitation, toElicitResult } from './elicitation.ts';
import { FRESH_CALL, type MrtrResumeState, type ResumeOutcome } from './resume-state.ts';

/*
 * MRTR (multi round-trip requests, 2026-07-28): the server answers `tools/call` with
 * `input_required` (its `inputRequests` and an opaque `requestState`) instead of pushing a
 * request; the client asks the human, then makes the call again with the answers. Nothing waits
 * on the server meanwhile, so the call simply ends in an interrupt.
 */

/**
 * Applies the human's answer to the MRTR request being asked: the next unanswered request is
 * asked next (another interrupt), or, all answered, the call is made again with the answers.
 */
export function resumeMrtr(
  state: MrtrResumeState,
  resolution: Resolution,
  scope: McpCallScope,
  context: ToolContext,
): ResumeOutcome {
  const asked = (
    state.inputRequests[state.key] as { params?: { requestedSchema?: Record<string, unknown> } }
  )?.params?.requestedSchema;
  const answers = { ...state.answers, [state.key]: toElicitResult(resolution, asked) };
  const next = nextElicitation(state.inputRequests, answers);
  if (next !== undefined && 'invalid' in next) {
    return { settled: invalidInputRequest(scope, next.key, next.invalid) };
  }
  if (next !== undefined) {
    return {
      settled: context.interrupt(scrubRequest(scope, next.request), {
        ...state,
        answers,
        key: next.key,
      } satisfies MrtrResumeState),
    };
  }
  return {
    plan: {
      ...FRESH_CALL,
      retry: {
        inputResponses: answers,
        ...(state.requestState === undefined ? {} : { requestState: state.requestState }),
      },
    },
  };
}

/**
 * The interrupt for an `input_required` result: its first elicitation request. An error output
 * when it asks only for what this client cannot give (sampling, roots, …).
 */
export function interruptForMrtr(
  result: { inputRequests?: unknown; requestState?: unknown },
  scope: McpCallScope,
  context: ToolContext,
): ToolOutput | ToolInterruptResult {
  const inputRequests = (result.inputRequests ?? {}) as Record<string, unknown>;
  const next = nextElicitation(inputRequests, {});
  if (next === undefined) {
    return toolError(
      'unsupported_input_request',
      `${scope.where} asked for input this client cannot give (only elicitation is supported).`,
    );
  }
  if ('invalid' in next) return invalidInputRequest(scope, next.key, next.invalid);
  return context.interrupt(scrubRequest(scope, next.request), {
    kind: 'mrtr',
    ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
    inputRequests,
    answers: {},
    key: next.key,
  } satisfies MrtrResumeState);
}

/**
 * The error output for an input request that cannot be asked (see `parseElicitation`): MRTR has
 * no JSON-RPC request to answer with an error, so the call ends with the reason instead.
 */
function invalidInputRequest(scope: McpCallScope, key: string, reason: string): ToolOutput {
  return toolError(
    'invalid_input_request',
    scope.connection.scrubber.scrub(
      `${scope.where} sent an elicitation request ("${key}") that cannot be asked: ${reason}.`,
    ),
  );
}
