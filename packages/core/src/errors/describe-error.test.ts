import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolError, TOOL_ERROR_TEXT } from '../tools/tool-errors.ts';
import { describeError, describeToolError, type ErrorDescription } from './describe-error.ts';
import { invalidFieldsOf } from './invalid-fields.ts';
import { SwitchboardError } from './switchboard-error.ts';

const where = 'MCP server "demo" (http://127.0.0.1:4100/legacy/mcp)';

/** What a Zod dump of a rejected booking answer looks like: ZodError.message, ~1 KB of JSON. */
function zodDump(): string {
  const schema = z.object({ name: z.string().min(1), date: z.iso.date(), partySize: z.number() });
  const parsed = schema.safeParse({ name: '', date: 'tomorrow', partySize: 'two' });
  if (parsed.success) throw new Error('the answer should be invalid');
  return parsed.error.message;
}

function prettified(): string {
  const parsed = z.object({ name: z.string() }).safeParse({ name: 3 });
  if (parsed.success) throw new Error('the answer should be invalid');
  return `The booking answer was invalid: ${z.prettifyError(parsed.error)}`;
}

/** The first line a person reads: never JSON, a dump, backticks or a bare code. */
function expectPlainSentence({ sentence }: ErrorDescription): void {
  expect(sentence).not.toMatch(/[{}[\]`✖\n]/);
  expect(sentence).not.toMatch(/jsonrpc|http_status|mcp_error|connection_refused|needs_auth/);
  expect(sentence.length).toBeLessThanOrEqual(220);
}

describe('describeError', () => {
  const cases: {
    name: string;
    error: unknown;
    sentence: RegExp;
    unreachable?: boolean;
    details?: Record<string, unknown>;
  }[] = [
    {
      name: 'CORS hides Mcp-Session-Id: names the header to expose, no "reconnect"',
      error: new SwitchboardError(
        'http_status',
        `${where} answered HTTP 400 Bad Request: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null} The server requires a session, but no Mcp-Session-Id header could be read from its initialize response. In a browser the server must send \`Access-Control-Expose-Headers: Mcp-Session-Id\` on that response (not only on the preflight).`,
        {
          details: {
            status: 400,
            hint: 'expose-mcp-session-id',
            body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}',
          },
          cause: new Error('SSE fallback failed: HTTP 405'),
        },
      ),
      sentence:
        /^"demo" does not let this page read its session id \(CORS\)\. The server must send "Access-Control-Expose-Headers: Mcp-Session-Id"/,
      unreachable: false,
      details: {
        code: 'http_status',
        server: 'demo',
        httpStatus: 400,
        body: expect.stringContaining('Mcp-Session-Id header is required') as unknown,
        cause: 'SSE fallback failed: HTTP 405',
      },
    },
    {
      name: 'a refused connection: the only case that says to reconnect once it is back',
      error: new SwitchboardError('connection_refused', `Could not reach ${where}: refused.`),
      sentence:
        /^Could not reach "demo": it is not running, or it does not let this page in \(CORS\)\. Start it or allow this origin, then reconnect\.$/,
      unreachable: true,
    },
    {
      name: 'HTTP 401: sign in',
      error: new SwitchboardError('http_status', `${where} answered HTTP 401`, {
        details: { status: 401 },
      }),
      sentence: /^"demo" wants you to sign in \(HTTP 401\)\. Sign in, or check its credentials\.$/,
      unreachable: false,
      details: { httpStatus: 401 },
    },
    {
      name: 'needs_auth without a reason',
      error: new SwitchboardError('needs_auth', `${where} needs you to sign in.`),
      sentence: /^"demo" needs you to sign in\. Connect, then try again\.$/,
    },
    {
      name: 'a sign-in popup closed',
      error: new SwitchboardError('needs_auth', 'closed', { details: { reason: 'closed' } }),
      sentence: /^The sign-in window was closed before you finished\. Connect to try again\.$/,
    },
    {
      name: 'a refused sign-in names the OAuth error code',
      error: new SwitchboardError('needs_auth', 'refused', {
        details: { reason: 'denied', error: 'access_denied' },
      }),
      sentence:
        /^Sign-in was refused \(access_denied\)\. Connect to try again, or use another account\.$/,
    },
    {
      name: 'a refused sign-in keeps a code that is not a token out of the sentence',
      error: new SwitchboardError('needs_auth', 'refused', {
        details: { reason: 'denied', error: '<b>{"x":1}</b>' },
      }),
      sentence: /^Sign-in was refused\. Connect to try again, or use another account\.$/,
    },
    {
      name: 'a model request timeout, in seconds',
      error: new SwitchboardError('timeout', 'The model call took longer than 60000 ms.', {
        details: { which: 'request', timeoutMs: 60_000 },
      }),
      sentence:
        /^The model did not finish its answer in time \(gave up after 60 s\)\. Try again, or raise the time limit\.$/,
    },
    {
      name: "a tool call's idle timeout",
      error: new SwitchboardError(
        'timeout',
        'The tool call got no result or progress for 30000 ms.',
        {
          details: { which: 'idle' },
        },
      ),
      sentence: /^The tool sent no result or progress for too long, so the call was stopped\./,
    },
    {
      name: 'an SDK request timeout of a server',
      error: new SwitchboardError('timeout', `${where} did not answer in time.`),
      sentence: /^"demo" did not answer in time\. Try again/,
    },
    {
      name: 'outcome unknown: names the tool and says to check before running again',
      error: new SwitchboardError('outcome_unknown', 'lost', {
        details: { tool: 'delete_file', reason: 'connection_lost' },
      }),
      sentence:
        /^The answer of "delete_file" was lost, so it may or may not have run\. Check whether it took effect before running it again\.$/,
    },
    {
      name: 'a rejected elicitation: a short list of fields, not the Zod dump',
      error: new SwitchboardError('mcp_error', `${where} returned error -32602: ${zodDump()}`, {
        details: { code: -32602 },
      }),
      sentence:
        /^The answer was rejected: name \(Too small.*\), date \(Invalid ISO date\), partySize \(Invalid input: expected number, received string\)\. Correct them and try again\.$/,
      details: {
        invalidFields: [
          { path: 'name', problem: expect.stringContaining('Too small') as unknown },
          { path: 'date', problem: 'Invalid ISO date' },
          { path: 'partySize', problem: 'Invalid input: expected number, received string' },
        ],
      },
    },
    {
      name: "the SDK's Ajv rejection of an elicitation answer",
      error: new SwitchboardError(
        'mcp_error',
        `${where} returned error -32602: Elicitation response content does not match requested schema: data/date must match format "date", data must have required property 'name'`,
        { details: { code: -32602 } },
      ),
      sentence:
        /^The answer was rejected: date \(must match format "date"\), name \(Required\)\. Correct them and try again\.$/,
    },
    {
      name: "Switchboard's own check of a form answer (cfworker errors)",
      error: new SwitchboardError(
        'invalid_resolution',
        'The answers for call c1 do not match the requested schema: #: Instance does not have required property "name".; #: Property "date" does not match schema.; #/date: String does not match format "date".',
        { details: { callId: 'c1' } },
      ),
      sentence:
        /^The answer was rejected: name \(Required\), date \(String does not match format "date"\)\. Correct them and try again\.$/,
    },
    {
      name: 'a short plain server error is quoted',
      error: new SwitchboardError('mcp_error', 'No such note.', { details: { code: -32000 } }),
      sentence: /^"demo" reported an error \(-32000\): No such note\.$/,
    },
    {
      name: "toMcpError's server prefix is not repeated in the quote",
      error: new SwitchboardError('mcp_error', `${where} returned error -32000: No such note`, {
        details: { code: -32000 },
      }),
      sentence: /^"demo" reported an error \(-32000\): No such note\.$/,
    },
    {
      name: 'a long plain tool failure: its first line, cut at a word',
      error: new SwitchboardError(
        'tool_execution_failed',
        `The notes folder is read-only on this server, so ${'nothing could be written there '.repeat(5)}\nstack line`,
      ),
      sentence:
        /^The tool failed: The notes folder is read-only on this server, so nothing could be written there nothing.*…$/,
    },
    {
      name: 'a model provider refusing the key',
      error: new SwitchboardError('model_error', 'HTTP 401 {"error":"bad key"}', {
        details: { status: 401 },
      }),
      sentence:
        /^The model provider refused the API key \(HTTP 401\)\. Check the key in Settings\.$/,
    },
    {
      name: 'a plain Error with a long JSON message: no JSON in the sentence',
      error: new Error(`{"jsonrpc":"2.0","error":{"code":1,"message":"${'x'.repeat(400)}"}}`),
      sentence: /^Something went wrong\. See the details\.$/,
    },
  ];

  it.each(cases)('$name', ({ error, sentence, unreachable, details }) => {
    const description = describeError(error, { server: 'demo' });
    expect(description.sentence).toMatch(sentence);
    expectPlainSentence(description);
    if (unreachable !== undefined) expect(description.unreachable).toBe(unreachable);
    if (details !== undefined) expect(description.details).toMatchObject(details);
    expect(description.details.message.length).toBeLessThanOrEqual(600);
  });

  it('names "the server" when the caller does not', () => {
    const { sentence, details } = describeError(
      new SwitchboardError('http_status', 'HTTP 500', { details: { status: 500 } }),
    );
    expect(sentence).toBe(
      "The server failed on its side (HTTP 500). Try again later, or check the server's logs.",
    );
    expect(details).not.toHaveProperty('server');
  });

  it('names the host of an unnamed server mid-sentence in lower case', () => {
    const { sentence } = describeError(
      new SwitchboardError('connection_refused', 'Could not reach the agent server.', {
        details: { host: '127.0.0.1:3010' },
      }),
    );
    expect(sentence).toBe(
      'Could not reach the server at 127.0.0.1:3010: it is not running, or it does not let this page in (CORS). Start it or allow this origin, then reconnect.',
    );
  });

  it('never calls an answered request unreachable', () => {
    const answered = [
      'http_status',
      'needs_auth',
      'mcp_error',
      'timeout',
      'invalid_response',
    ] as const;
    for (const code of answered) {
      expect(describeError(new SwitchboardError(code, 'x'), { server: 's' }).unreachable).toBe(
        false,
      );
    }
  });
});

describe('describeToolError', () => {
  it.each([
    [toolError('rejected', TOOL_ERROR_TEXT.rejected), /^You declined this tool call/],
    [toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish), /^Cancelled before it finished/],
    [toolError('unanswered', TOOL_ERROR_TEXT.unanswered), /^Not answered/],
    [toolError('outcome_unknown', TOOL_ERROR_TEXT.outcomeUnknown), /may or may not have run/],
    [
      toolError(-32601, 'Method not found'),
      /^"demo" reported an error \(-32601\): Method not found\.$/,
    ],
  ])('%# %o', (output, sentence) => {
    const description = describeToolError(output, { server: 'demo' });
    expect(description.sentence).toMatch(sentence);
    expectPlainSentence(description);
  });

  it("turns a tool's own validation dump (no code) into a list of fields", () => {
    const description = describeToolError({ text: prettified(), isError: true });
    expect(description.sentence).toBe(
      'The answer was rejected: name (Invalid input: expected string, received number). Correct it and try again.',
    );
    expect(description.details.code).toBe('tool_execution_failed');
    expectPlainSentence(description);
  });
});

describe('invalidFieldsOf', () => {
  it('reads nothing from prose', () => {
    expect(invalidFieldsOf('The server is down for maintenance.')).toBeUndefined();
    expect(invalidFieldsOf('[not json]')).toBeUndefined();
  });

  it('keeps at most 8 fields of a long dump, each reason short', () => {
    const shape = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`field${index}`, z.string()]),
    );
    const parsed = z.object(shape).safeParse({});
    if (parsed.success) throw new Error('should fail');
    const fields = invalidFieldsOf(parsed.error.message);
    expect(fields).toHaveLength(8);
    expect(fields?.[0]).toEqual({
      path: 'field0',
      problem: 'Invalid input: expected string, received undefined',
    });
  });
});
