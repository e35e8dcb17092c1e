import type { SwitchboardErrorCode, ToolErrorCode } from '../vocabulary/error-codes.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import { invalidFieldsOf, type InvalidField } from './invalid-fields.ts';
import { messageOf } from './message-of.ts';
import { isSwitchboardError } from './switchboard-error.ts';

export type { InvalidField };

/**
 * The facts behind an {@link ErrorDescription}'s sentence, for an expandable "Details" view.
 * Each is absent when the error does not carry it. Never a header value or token: Switchboard's
 * errors carry none.
 */
export interface ErrorDescriptionDetails {
  /** The error code: a {@link SwitchboardErrorCode}, a {@link ToolErrorCode}, or `error`. */
  code: string;
  /** The MCP server (or tool) the error is about, as the caller named it. */
  server?: string;
  /** The HTTP status the server or model provider answered. */
  httpStatus?: number;
  /** An excerpt of the response body (at most 300 characters). */
  body?: string;
  /** The fields a validator rejected (at most 8), instead of the validator's dump. */
  invalidFields?: readonly InvalidField[];
  /** The error's own message, cut to 600 characters. */
  message: string;
  /** The message of the underlying error (`cause`), cut to 300 characters. */
  cause?: string;
}

/**
 * An error as a person reads it: one `sentence` (what happened, what to do; plain text, never
 * raw JSON or a validator dump), then `details` for whoever wants them.
 */
export interface ErrorDescription {
  /** One or two short sentences: what happened, then what to do. */
  sentence: string;
  details: ErrorDescriptionDetails;
  /**
   * True when the server (or model) could not be reached at all, so the fix is to bring it back
   * and reconnect. False for every error where the server answered (HTTP status, CORS, auth,
   * protocol): reconnecting changes nothing there.
   */
  unreachable: boolean;
}

/** What the caller knows that the error does not say. */
export interface DescribeErrorContext {
  /** The name of the MCP server the error is about (in the sentence: `"demo"`). */
  server?: string;
}

const maxMessage = 600;
const maxCause = 300;
const maxQuoted = 140;

/**
 * Describes anything thrown — a `SwitchboardError` (from `@switchboard/core` or another copy),
 * any other `Error`, or a value — as one sentence and details. Branches on `code` and
 * `details`, never on the message: the message only fills the details (and a short, plain
 * server text may be quoted).
 *
 * ```ts
 * const { sentence, details } = describeError(error, { server: 'demo' });
 * ```
 */
export function describeError(
  error: unknown,
  context: DescribeErrorContext = {},
): ErrorDescription {
  if (!isSwitchboardError(error)) {
    const message = messageOf(error);
    return describeCode('error', message, undefined, context, causeOf(error));
  }
  return describeCode(error.code, error.message, error.details, context, causeOf(error));
}

/**
 * Describes the error {@link ToolOutput} of a tool call (`isError`), by its `error.code` (a
 * {@link ToolErrorCode}); a tool's own failure (no code, or a code of the app's own) is quoted
 * when its text is short and plain. A validation dump becomes a list of fields. The details'
 * `message` is the output's `text`: what the model read.
 */
export function describeToolError(
  output: ToolOutput,
  context: DescribeErrorContext = {},
): ErrorDescription {
  const code = output.error?.code ?? 'tool_execution_failed';
  // What the model read; the error's own message when the output has no text.
  const message = output.text !== '' ? output.text : (output.error?.message ?? '');
  if (typeof code === 'number') {
    return describeCode('mcp_error', message, { code }, context, undefined);
  }
  return describeCode(code, message, undefined, context, undefined);
}

function describeCode(
  code: string,
  message: string,
  details: Readonly<Record<string, unknown>> | undefined,
  context: DescribeErrorContext,
  cause: string | undefined,
): ErrorDescription {
  const httpStatus = numberOf(details?.['status']);
  const body = stringOf(details?.['body']);
  const invalidFields = invalidFieldsOf(message);
  const facts: ErrorDescriptionDetails = {
    code,
    ...(context.server === undefined ? {} : { server: context.server }),
    ...(httpStatus === undefined ? {} : { httpStatus }),
    ...(body === undefined ? {} : { body }),
    ...(invalidFields === undefined ? {} : { invalidFields }),
    message: cut(message, maxMessage),
    ...(cause === undefined ? {} : { cause: cut(cause, maxCause) }),
  };
  const host = stringOf(details?.['host']);
  // Mid-sentence as often as first: written lower case, the sentence's first letter raised below.
  const subject =
    context.server !== undefined
      ? `"${context.server}"`
      : host === undefined
        ? 'the server'
        : `the server at ${host}`;
  const unreachable = code === 'connection_refused';
  return {
    sentence: upperFirst(
      sentenceOf(code, { subject, details, httpStatus, invalidFields, message }),
    ),
    details: facts,
    unreachable,
  };
}

interface SentenceFacts {
  subject: string;
  details: Readonly<Record<string, unknown>> | undefined;
  httpStatus: number | undefined;
  invalidFields: readonly InvalidField[] | undefined;
  message: string;
}

function upperFirst(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

function sentenceOf(code: string, facts: SentenceFacts): string {
  const { subject, details, httpStatus, invalidFields, message } = facts;
  const quoted = plainQuote(message);
  if (invalidFields !== undefined && schemaCodes.has(code)) {
    return `${rejectedAnswer(code)}: ${fieldList(invalidFields)}. Correct ${
      invalidFields.length === 1 ? 'it' : 'them'
    } and try again.`;
  }
  switch (code as SwitchboardErrorCode | Exclude<ToolErrorCode, number> | 'error') {
    case 'connection_refused':
      // The request never left the browser: the server is not to blame.
      if (details?.['reason'] === 'offline') {
        return 'You are offline: the request was not sent. Reconnect to the network and try again.';
      }
      return (
        `Could not reach ${subject}: it is not running, or it does not let this page in (CORS). ` +
        'Start it or allow this origin, then reconnect.'
      );
    case 'connection_lost':
      return `The connection to ${subject} broke before its answer arrived. Reconnect to try again.`;
    case 'connection_closed':
      return `The connection to ${subject} was closed. Reconnect to use it again.`;
    case 'outcome_unknown': {
      const tool = stringOf(details?.['tool']);
      return (
        `The answer of ${tool === undefined ? 'this tool call' : `"${tool}"`} was lost, so it ` +
        'may or may not have run. Check whether it took effect before running it again.'
      );
    }
    case 'http_status':
      return httpSentence(subject, httpStatus, details?.['hint']);
    case 'needs_auth':
      return authSentence(subject, details);
    case 'unsupported_protocol_version':
      return `${subject} speaks no MCP protocol version this client supports. Update the server or pick its protocol era.`;
    case 'invalid_response':
      return `${subject} sent an answer this client cannot read. Check the server's logs.`;
    case 'timeout':
      return timeoutSentence(subject, details);
    case 'aborted':
      return 'Stopped before it finished. Send it again to retry.';
    case 'mcp_error': {
      const rpc = numberOf(details?.['code']);
      const said = quoted === undefined ? '' : `: ${quoted}`;
      return `${subject} reported an error${rpc === undefined ? '' : ` (${rpc})`}${said}${
        quoted === undefined ? '. See the details.' : ''
      }`;
    }
    case 'tool_not_found':
      return 'The model asked for a tool that does not exist, so nothing ran. Try rephrasing.';
    case 'invalid_tool_arguments':
      return 'The model sent arguments that do not fit the tool, so it did not run. Try rephrasing.';
    case 'tool_execution_failed':
      return quoted === undefined
        ? 'The tool failed. See the details.'
        : `The tool failed: ${quoted}`;
    case 'model_error':
      return modelSentence(httpStatus, quoted);
    case 'max_turns_exceeded': {
      const turns = numberOf(details?.['maxTurns']);
      return `The agent stopped after ${turns ?? 'too many'} model calls without a final answer. Ask again, more precisely.`;
    }
    case 'invalid_input':
      return quoted === undefined
        ? 'That input is not valid.'
        : `That input is not valid: ${quoted}`;
    case 'run_in_progress':
      return 'This conversation is already running. Wait for it to finish, or stop it.';
    case 'history_error':
      return 'The conversation could not be saved or read. Check that this browser allows site storage, then reload.';
    case 'storage_error':
      return 'Sign-in data could not be saved or read. Check that this browser allows site storage.';
    case 'hook_failed':
      return 'A check of this app failed, so the step did not run. See the details.';
    case 'unknown_call_id':
    case 'not_paused':
      return 'Nothing is waiting for this answer any more (answered elsewhere, or gone). Reload to see the current state.';
    case 'invalid_resolution':
      return 'That answer does not fit the question. Check it and send it again.';
    case 'run_claimed':
      return 'Another tab or client took over this run; it goes on there and this page updates when it ends.';
    case 'rejected':
      return 'You declined this tool call, so it did not run.';
    case 'declined':
      return 'You declined the request, so the tool went on without your answer.';
    case 'cancelled':
      return 'Cancelled before it finished.';
    case 'unanswered':
      return 'Not answered: you moved on, so this tool call was not completed.';
    case 'failed':
      return 'The run failed before this tool call finished.';
    case 'invalid_structured_content':
      return `${subject} sent a result that does not match the tool's own output schema. Check the server.`;
    case 'input_rounds_exceeded':
      return `${subject} kept asking for more input, so the call was stopped. Check the server.`;
    case 'unsupported_input_request':
      return `${subject} asked for a kind of input this app cannot show, so the call was stopped.`;
    case 'invalid_input_request':
      return `${subject} asked for input with a form this app cannot show, so the call was stopped.`;
    default:
      return quoted === undefined
        ? 'Something went wrong. See the details.'
        : `Something went wrong: ${quoted}`;
  }
}

/** Codes whose message may be a validator's dump that names fields. */
const schemaCodes = new Set([
  'mcp_error',
  'invalid_tool_arguments',
  'invalid_input',
  'invalid_resolution',
  'invalid_structured_content',
  'invalid_input_request',
  'tool_execution_failed',
  'error',
]);

function rejectedAnswer(code: string): string {
  if (code === 'invalid_tool_arguments') return 'The model sent invalid arguments';
  if (code === 'invalid_structured_content') return 'The result does not match its schema';
  return 'The answer was rejected';
}

function fieldList(fields: readonly InvalidField[]): string {
  return fields
    .map((field) =>
      field.path === '' ? field.problem : `${field.path} (${field.problem.replace(/\.$/, '')})`,
    )
    .join(', ');
}

function httpSentence(subject: string, status: number | undefined, hint: unknown): string {
  if (hint === 'expose-mcp-session-id') {
    return (
      `${subject} does not let this page read its session id (CORS). The server must send ` +
      '"Access-Control-Expose-Headers: Mcp-Session-Id" on its responses.'
    );
  }
  const http = status === undefined ? 'an HTTP error' : `HTTP ${status}`;
  if (status === 401)
    return `${subject} wants you to sign in (HTTP 401). Sign in, or check its credentials.`;
  if (status === 403)
    return `${subject} refused access (HTTP 403). Check that your account may use it.`;
  if (status === 404) return `${subject} answered "not found" (HTTP 404). Check its URL.`;
  if (status === 429) return `${subject} is rate limiting (HTTP 429). Wait a moment and try again.`;
  if (status !== undefined && status >= 500) {
    return `${subject} failed on its side (${http}). Try again later, or check the server's logs.`;
  }
  return `${subject} refused the request (${http}). Its answer is in the details.`;
}

function authSentence(
  subject: string,
  details: Readonly<Record<string, unknown>> | undefined,
): string {
  switch (details?.['reason']) {
    case 'closed':
      return 'The sign-in window was closed before you finished. Connect to try again.';
    case 'denied': {
      // RFC 6749 §4.1.2.1 error codes are short ASCII tokens (`access_denied`); anything else a
      // server sends stays in the details, out of the sentence.
      const error = details['error'];
      const shown = typeof error === 'string' && /^[\w.-]{1,64}$/.test(error) ? ` (${error})` : '';
      return `Sign-in was refused${shown}. Connect to try again, or use another account.`;
    }
    case 'timeout':
      return 'The sign-in took too long. Connect to try again.';
    case 'state_mismatch':
      return 'The answer from the sign-in page did not match this request, so it was ignored. Connect to try again.';
    case 'invalid_response':
      return 'The sign-in page sent an answer that could not be used. Connect to try again.';
    case 'open_failed':
      return 'The browser for the sign-in could not be opened. Open the sign-in link yourself.';
    default:
      return `${subject} needs you to sign in. Connect, then try again.`;
  }
}

function timeoutSentence(
  subject: string,
  details: Readonly<Record<string, unknown>> | undefined,
): string {
  const which = details?.['which'];
  const ms = numberOf(details?.['timeoutMs']);
  const after = ms === undefined ? '' : ` after ${seconds(ms)}`;
  // The model clock sets `timeoutMs`; a tool call's timer does not.
  if (ms !== undefined && which === 'request') {
    return `The model did not finish its answer in time (gave up${after}). Try again, or raise the time limit.`;
  }
  if (ms !== undefined && which === 'idle') {
    return `The model stopped sending anything (gave up${after}). Try again; the provider may be overloaded.`;
  }
  if (which === 'idle') {
    return 'The tool sent no result or progress for too long, so the call was stopped. Try again, or check the server.';
  }
  if (which === 'total') {
    return 'The tool ran longer than its time limit, so the call was stopped. Try again, or check the server.';
  }
  return `${subject} did not answer in time. Try again; if it keeps happening, check the server.`;
}

function modelSentence(status: number | undefined, quoted: string | undefined): string {
  if (status === 401 || status === 403) {
    return `The model provider refused the API key (HTTP ${status}). Check the key in Settings.`;
  }
  if (status === 429)
    return 'The model provider is rate limiting (HTTP 429). Wait a moment and try again.';
  if (status !== undefined && status >= 500) {
    return `The model provider failed (HTTP ${status}). Try again later.`;
  }
  if (status !== undefined)
    return `The model provider refused the request (HTTP ${status}). See the details.`;
  return quoted === undefined
    ? 'The model could not answer. See the details.'
    : `The model could not answer: ${quoted}`;
}

/**
 * The message's first line, when it is plain prose worth quoting in a sentence: no JSON, no
 * backticks, no validator dump; cut at a word to at most 140 characters; ends with a full stop.
 */
function plainQuote(message: string): string | undefined {
  // `toMcpError`'s prefix names the server, which the sentence names already.
  const own = message.replace(
    /^MCP server "[^"]*" \([^)]*\) (?:returned error -?\d+|failed): /,
    '',
  );
  const line = (own.trim().split('\n')[0] ?? '').trim();
  if (line === '' || /[{}[\]`✖]/.test(line)) return undefined;
  if (line.length <= maxQuoted) return /[.!?]$/.test(line) ? line : `${line}.`;
  const cutAt = line.lastIndexOf(' ', maxQuoted - 1);
  return `${line.slice(0, cutAt > 40 ? cutAt : maxQuoted - 1)}…`;
}

function causeOf(error: unknown): string | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause === undefined ? undefined : messageOf(cause);
}

function seconds(ms: number): string {
  const value = ms / 1000;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} s`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
