import {
  ProtocolError,
  UrlElicitationRequiredError,
  isInputRequiredResult,
  type Client,
} from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import type { Resolution } from '../vocabulary/interrupts.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import type { ToolContext } from '../tools/tool-types.ts';
import type { InputRequest, ToolInterruptResult } from '../vocabulary/interrupts.ts';
import { CallTimer } from './call-timer.ts';
import { CALL_TOOL_RESULT_SCHEMA } from './call-tool-result-schema.ts';
import { CALL_ID_META_KEY, type ElicitationRouter } from './elicitation-router.ts';
import { mapCallToolResult, type CallToolResultLike } from './map-call-tool-result.ts';
import type { McpConnection } from './mcp-connection.ts';
import { toMcpError } from './to-mcp-error.ts';

/** A pushed `elicitation/create` waiting for the human, as seen by the server's handler. */
export interface ActiveCall {
  /** Asks the human (pausing the call's clocks) and returns the MCP `ElicitResult`. */
  ask(request: InputRequest): Promise<ElicitResultLike>;
}

/** The MCP `ElicitResult` (spec 2025-11-25, elicitation). */
export interface ElicitResultLike {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The plain-JSON resume states an MCP call stores in the run state. */
type McpResumeState =
  /** MRTR (2026-07-28): the server's `requestState` and requests; answers gathered so far. */
  | {
      kind: 'mrtr';
      requestState?: string;
      inputRequests: Record<string, unknown>;
      answers: Record<string, ElicitResultLike>;
      key: string;
    }
  /** A pushed request (2025 era): what was asked, to recognise it when the server asks again. */
  | { kind: 'pushed'; request: InputRequest }
  /** Error -32042: URL elicitations required before the call can succeed. */
  | { kind: 'url-required'; url: string; shownUrls: string[] }
  /** The server wants OAuth authorization (401, or 403 step-up needing consent): `attempts` so far. */
  | { kind: 'authorization'; attempts: number };

/** Everything one call needs from its {@link McpServer}. */
export interface McpCallScope {
  connection: McpConnection;
  router: ElicitationRouter;
  /** Calls in flight by call key (see {@link callMcpTool}), for the `elicitation/create` handler. */
  activeCalls: Map<string, ActiveCall>;
  where: string;
  timeoutMs: number;
  maxTotalTimeoutMs: number;
  /**
   * A `needs_auth` failure becomes an `authorization` interrupt (agent runs: the user signs in,
   * the call is made again) instead of a thrown error (direct calls).
   */
  authorizationInterrupts: boolean;
  /** Told about every `needs_auth` failure (the server's status becomes `needs-auth`). */
  onNeedsAuth(error: SwitchboardError): void;
}

const validator = new CfWorkerJsonSchemaValidator();
/** Sign-ins one call asks for before it gives up (the server keeps refusing fresh tokens). */
const MAX_AUTHORIZATION_ATTEMPTS = 3;
/** The SDK's own timeout is switched off (our {@link CallTimer} keeps time); max setTimeout. */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** Numbers each call in flight: two threads may use the same model call id at once. */
let callsStarted = 0;

/**
 * Calls one MCP tool for the agent: progress forwarded, our clocks (idle timeout reset by
 * progress, absolute cap, both paused while a human answers), and every way a server asks the
 * human turned into the same interrupt: a pushed `elicitation/create` (2025 era, live wait), an
 * `input_required` result (MRTR, stored `requestState`) and error -32042 (URL required).
 */
export async function callMcpTool(
  scope: McpCallScope,
  tool: { name: string; outputSchema?: Record<string, unknown> },
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutput | ToolInterruptResult> {
  const resume = context.resume;
  const state = resume?.resumeState as McpResumeState | undefined;
  let retry:
    { inputResponses: Record<string, ElicitResultLike>; requestState?: string } | undefined;
  let storedAnswer: { request: InputRequest; resolution: Resolution } | undefined;
  let shownUrls: string[] = [];

  if (resume !== undefined && state?.kind === 'mrtr') {
    const asked = (
      state.inputRequests[state.key] as { params?: { requestedSchema?: Record<string, unknown> } }
    )?.params?.requestedSchema;
    const answers = { ...state.answers, [state.key]: toElicitResult(resume.resolution, asked) };
    const next = nextElicitation(state.inputRequests, answers);
    if (next !== undefined) {
      return context.interrupt(scrubRequest(scope, next.request), {
        ...state,
        answers,
        key: next.key,
      });
    }
    retry = {
      inputResponses: answers,
      ...(state.requestState === undefined ? {} : { requestState: state.requestState }),
    };
  } else if (resume !== undefined && state?.kind === 'url-required') {
    if (resume.resolution.action !== 'approve') {
      return declinedOutput(resume.resolution.action);
    }
    shownUrls = state.shownUrls;
  } else if (resume !== undefined && state?.kind === 'pushed') {
    storedAnswer = { request: state.request, resolution: resume.resolution };
  } else if (resume !== undefined && state?.kind === 'authorization') {
    if (resume.resolution.action !== 'approve') {
      const verb = resume.resolution.action === 'reject' ? 'declined' : 'cancelled';
      return errorOutput(
        verb,
        `The user ${verb} signing in to ${scope.where}; the call was not made.`,
      );
    }
  }
  const authorizationAttempts = state?.kind === 'authorization' ? state.attempts : 0;

  const timer = new CallTimer(scope.timeoutMs, scope.maxTotalTimeoutMs, context.signal);
  // The key server requests are routed by: unique to this call in flight (a call id alone is
  // not: two threads may both have a call `call_1` running).
  const callKey = `${context.callId}#${++callsStarted}`;
  scope.activeCalls.set(callKey, {
    ask: async (request) => {
      if (storedAnswer !== undefined && sameRequest(storedAnswer.request, request)) {
        // The server asked again what the user already answered before the reload.
        const { resolution } = storedAnswer;
        storedAnswer = undefined;
        return toElicitResult(resolution, request.requestedSchema);
      }
      const shown = scrubRequest(scope, request);
      const asked = storedAnswer === undefined ? shown : { ...shown, reissued: true };
      timer.pause();
      try {
        const resolution = await context.requestInput(asked, { kind: 'pushed', request });
        return toElicitResult(resolution, request.requestedSchema);
      } finally {
        timer.resume();
      }
    },
  });
  /** Set once the `tools/call` request is handed to the client: from then on it may arrive. */
  let dispatched = false;
  try {
    const result = await scope.connection.use(
      context.runContext,
      async (client: Client) => {
        // Server requests on this session's shared stream (legacy SSE) are this call's: the
        // session carries no other call while this one runs (`exclusive` below).
        const detach = scope.router.attach(client, callKey);
        dispatched = true;
        try {
          return await client.request(
            {
              method: 'tools/call',
              params: {
                name: tool.name,
                arguments: args,
                _meta: { [CALL_ID_META_KEY]: callKey },
                ...retry,
              },
            },
            CALL_TOOL_RESULT_SCHEMA,
            {
              signal: timer.signal,
              timeout: NO_SDK_TIMEOUT,
              allowInputRequired: true,
              onprogress: (progress) => {
                timer.touch();
                context.reportProgress({
                  progress: progress.progress,
                  ...(progress.total === undefined ? {} : { total: progress.total }),
                  ...(progress.message === undefined
                    ? {}
                    : { message: scope.connection.scrubber.scrub(progress.message) }),
                });
              },
            },
          );
        } finally {
          detach();
        }
      },
      { signal: timer.signal, exclusive: true },
    );
    if (isInputRequiredResult(result)) {
      const inputRequests = (result.inputRequests ?? {}) as Record<string, unknown>;
      const next = nextElicitation(inputRequests, {});
      if (next === undefined) {
        return errorOutput(
          'unsupported_input_request',
          `${scope.where} asked for input this client cannot give (only elicitation is supported).`,
        );
      }
      return context.interrupt(scrubRequest(scope, next.request), {
        kind: 'mrtr',
        ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
        inputRequests,
        answers: {},
        key: next.key,
      } satisfies McpResumeState);
    }
    // Server text reaches history and the model: secrets this client sent are taken out.
    return scope.connection.scrubber.scrubDeep(
      checkStructuredContent(mapCallToolResult(result as CallToolResultLike), tool.outputSchema),
    );
  } catch (caught) {
    if (caught instanceof SwitchboardError && caught.code === 'needs_auth') {
      scope.onNeedsAuth(caught);
      if (scope.authorizationInterrupts && authorizationAttempts < MAX_AUTHORIZATION_ATTEMPTS) {
        return context.interrupt(
          {
            mode: 'authorization',
            message: `${scope.where} needs you to sign in before ${tool.name} can run.`,
          },
          { kind: 'authorization', attempts: authorizationAttempts + 1 } satisfies McpResumeState,
        );
      }
      throw caught;
    }
    if (dispatched && caught instanceof SwitchboardError && caught.code === 'connection_lost') {
      throw outcomeUnknown(scope.where, tool.name, caught);
    }
    // The connection classifies failures; the server's own error is kept as the cause.
    const error: unknown =
      caught instanceof SwitchboardError && caught.cause !== undefined ? caught.cause : caught;
    if (error instanceof UrlElicitationRequiredError) {
      const wanted = error.elicitations.find((elicitation) => !shownUrls.includes(elicitation.url));
      if (wanted === undefined) {
        return errorOutput(
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
        } satisfies McpResumeState,
      );
    }
    if (error instanceof ProtocolError) {
      return errorOutput(
        error.code,
        scope.connection.scrubber.scrub(
          `${scope.where} returned error ${error.code}: ${error.message}`,
        ),
      );
    }
    const reason: unknown = timer.signal.reason;
    if (timer.signal.aborted && reason instanceof SwitchboardError && reason.code === 'timeout')
      throw reason;
    const failure = toMcpError(caught, scope.where, context.signal);
    const message = scope.connection.scrubber.scrub(failure.message);
    if (message === failure.message) throw failure;
    throw new SwitchboardError(failure.code, message, {
      cause: failure.cause,
      ...(failure.details === undefined ? {} : { details: { ...failure.details } }),
    });
  } finally {
    timer.dispose();
    scope.activeCalls.delete(callKey);
  }
}

/**
 * The `outcome_unknown` error of a call whose request went out and whose answer was lost: the
 * server may have run the tool, so the message tells the model (and the user) not to repeat a
 * side effect blindly.
 */
function outcomeUnknown(
  where: string,
  toolName: string,
  cause: SwitchboardError,
): SwitchboardError {
  return new SwitchboardError(
    'outcome_unknown',
    `The call to ${toolName} was sent to ${where}, but the connection broke before its answer ` +
      'arrived, so whether the tool ran is unknown. Do not repeat it blindly if it has side ' +
      'effects: check whether it took effect first.',
    { cause, details: { tool: toolName, reason: cause.code } },
  );
}

/** `request` with secrets this client sent taken out of the server's message. */
function scrubRequest(scope: McpCallScope, request: InputRequest): InputRequest {
  if (request.message === undefined) return request;
  const message = scope.connection.scrubber.scrub(request.message);
  return message === request.message ? request : { ...request, message };
}

/** The first elicitation request not answered yet, as an {@link InputRequest}. */
function nextElicitation(
  inputRequests: Record<string, unknown>,
  answers: Record<string, unknown>,
): { key: string; request: InputRequest } | undefined {
  for (const [key, value] of Object.entries(inputRequests)) {
    if (key in answers) continue;
    const request = value as { method?: string; params?: Record<string, unknown> };
    if (request.method !== 'elicitation/create' || request.params === undefined) continue;
    return { key, request: toInputRequest(request.params) };
  }
  return undefined;
}

/** An `elicitation/create` params object as an {@link InputRequest}. */
export function toInputRequest(params: Record<string, unknown>): InputRequest {
  const mode = params.mode === 'url' ? 'url' : 'form';
  const request: InputRequest = { mode };
  if (typeof params.message === 'string') request.message = params.message;
  if (
    mode === 'form' &&
    typeof params.requestedSchema === 'object' &&
    params.requestedSchema !== null
  ) {
    request.requestedSchema = params.requestedSchema as Record<string, unknown>;
  }
  if (mode === 'url' && typeof params.url === 'string') request.url = params.url;
  if (typeof params.elicitationId === 'string') request.elicitationId = params.elicitationId;
  return request;
}

/**
 * The user's real answer in MCP terms: approve → accept, reject → decline, cancel → cancel.
 * Accepted form content gets the schema's `default` for every field the user left out, as the
 * client declares `elicitation.form.applyDefaults` (spec 2025-11-25, SEP-1034).
 */
export function toElicitResult(
  resolution: Resolution,
  requestedSchema?: Record<string, unknown>,
): ElicitResultLike {
  if (resolution.action === 'approve') {
    const content = withDefaults(resolution.content, requestedSchema);
    return content === undefined ? { action: 'accept' } : { action: 'accept', content };
  }
  return { action: resolution.action === 'reject' ? 'decline' : 'cancel' };
}

function withDefaults(
  content: Record<string, unknown> | undefined,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return content;
  const filled: Record<string, unknown> = { ...content };
  for (const [name, property] of Object.entries(
    properties as Record<string, { default?: unknown }>,
  )) {
    if (filled[name] === undefined && property?.default !== undefined)
      filled[name] = property.default;
  }
  return content === undefined && Object.keys(filled).length === 0 ? undefined : filled;
}

function sameRequest(a: InputRequest, b: InputRequest): boolean {
  return (
    a.mode === b.mode &&
    a.message === b.message &&
    a.url === b.url &&
    JSON.stringify(a.requestedSchema) === JSON.stringify(b.requestedSchema)
  );
}

function checkStructuredContent(
  output: ToolOutput,
  outputSchema: Record<string, unknown> | undefined,
): ToolOutput {
  if (outputSchema === undefined || output.isError === true) return output;
  if (output.structuredContent === undefined) {
    return {
      ...output,
      isError: true,
      error: {
        code: 'invalid_structured_content',
        message: 'The tool declares an outputSchema but sent no structuredContent.',
      },
    };
  }
  const result = validator.getValidator(outputSchema as never)(output.structuredContent);
  if (result.valid) return output;
  const message = `The tool's structuredContent does not match its outputSchema: ${result.errorMessage}`;
  return {
    ...output,
    text: `${output.text}\n\n[${message}]`,
    isError: true,
    error: { code: 'invalid_structured_content', message },
  };
}

function declinedOutput(action: 'reject' | 'cancel'): ToolOutput {
  const verb = action === 'reject' ? 'declined' : 'cancelled';
  return errorOutput(
    verb,
    `The user ${verb} opening the URL the server asked for; the call was not completed.`,
  );
}

function errorOutput(code: string | number, message: string): ToolOutput {
  return { text: message, isError: true, error: { code, message } };
}
