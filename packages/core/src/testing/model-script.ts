import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * One part of a multi-part message `content` in a Chat Completions request. Only `text` parts
 * carry text; other part types (`image_url`, `input_audio`, …) are kept but ignored by the
 * default script.
 */
export interface ChatContentPart {
  /** Part type, e.g. `'text'` or `'image_url'`. */
  type: string;
  /** The text, present when `type` is `'text'`. */
  text?: string;
}

/** A tool call an assistant message made earlier in the conversation, as sent on the wire. */
export interface ChatRequestToolCall {
  id: string;
  type: 'function';
  function: {
    name: string;
    /** The arguments as a JSON string (exactly as the model produced them). */
    arguments: string;
  };
}

/**
 * One message of a Chat Completions request body: `system`/`developer` instructions, `user`
 * input, earlier `assistant` turns (with optional `tool_calls`) and `tool` results answering a
 * call by `tool_call_id`.
 */
export type ChatRequestMessage =
  | {
      role: 'system' | 'developer';
      content: string | ChatContentPart[];
      name?: string;
    }
  | {
      role: 'user';
      content: string | ChatContentPart[];
      name?: string;
    }
  | {
      role: 'assistant';
      content?: string | ChatContentPart[] | null;
      tool_calls?: ChatRequestToolCall[];
      reasoning_content?: string | null;
      name?: string;
    }
  | {
      role: 'tool';
      content: string | ChatContentPart[];
      tool_call_id: string;
    };

/** A function tool offered to the model, in the Chat Completions wire shape. */
export interface ChatTool {
  type: 'function';
  function: {
    /** Provider-facing tool name; may carry a server prefix such as `everything_get-sum`. */
    name: string;
    description?: string;
    /** JSON Schema of the arguments object. */
    parameters?: Record<string, unknown>;
    strict?: boolean | null;
  };
}

/**
 * The parsed body of a `POST /v1/chat/completions` request, as received by the scripted model
 * server. Only the fields the scripted server and tests care about are typed; anything else the
 * client sent is still present on the object at runtime.
 */
export interface ChatRequest {
  /** The model name the client asked for; echoed back in responses. */
  model: string;
  messages: ChatRequestMessage[];
  tools?: ChatTool[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  /** `true` for a server-sent-events stream of `chat.completion.chunk` objects. */
  stream?: boolean | null;
  stream_options?: {
    /** When `true`, a last chunk with empty `choices` carries the `usage`. */
    include_usage?: boolean;
  } | null;
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
}

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Tool name exactly as offered in the request's `tools` (including any prefix). */
  name: string;
  /**
   * The call's arguments. An object is sent as its JSON text; a string is sent raw, which lets
   * tests send invalid JSON.
   */
  arguments: Record<string, unknown> | string;
  /** The call id; defaults to a random one in the format's style (`call_…`, Anthropic `toolu_…`). */
  id?: string;
}

/**
 * Token counts a scripted reply reports; missing prompt and completion counts are estimated as
 * ceil(characters / 4). Each wire format reports them in its own shape: Chat Completions
 * `prompt_tokens_details.cached_tokens` / `completion_tokens_details.reasoning_tokens` (only when
 * set), Responses `input_tokens_details` / `output_tokens_details` (0 when unset), Anthropic
 * `cache_read_input_tokens` (with `input_tokens` = prompt tokens minus cached ones) and
 * `output_tokens_details.thinking_tokens` (only when set).
 */
export interface ScriptedUsage {
  /** All input tokens, cached ones included. */
  promptTokens?: number;
  /** All output tokens, reasoning ones included. */
  completionTokens?: number;
  /** Input tokens served from the provider's prompt cache. */
  cachedTokens?: number;
  /** Output tokens spent on reasoning. */
  reasoningTokens?: number;
}

/**
 * What the scripted model answers to one request. Every field is optional: an empty reply is an
 * assistant message with empty text and finish reason `stop`.
 */
export interface ScriptedReply {
  /** Assistant text; streamed word by word (spaces kept, so the chunks concatenate exactly). */
  text?: string;
  /** Tool calls, streamed after the text; the finish reason becomes `tool_calls`. */
  toolCalls?: ScriptedToolCall[];
  /**
   * Reasoning text, streamed first: Chat Completions `delta.reasoning_content`, Responses
   * `response.reasoning_summary_text.delta`, Anthropic `thinking_delta`.
   */
  reasoning?: string;
  /** Token counts to report instead of the estimate. */
  usage?: ScriptedUsage;
  /**
   * Delay in milliseconds between streamed chunks (for non-streaming requests: once, before the
   * response). Default 0.
   */
  delayMs?: number;
  /**
   * HTTP status to respond with. A status of 400 or more (or any `error`) makes the server answer
   * with an error body instead of a completion, in the wire format's shape (OpenAI
   * `{ error: { message, type, param, code } }`, Anthropic `{ type: 'error', error: { type,
   * message } }`).
   */
  status?: number;
  /** Error message; when set the server responds with an HTTP error (status defaults to 500). */
  error?: string;
  /**
   * Extra response headers, sent with the error or the answer, e.g. `{ 'retry-after': '0' }` on
   * a scripted 429 so that SDK retries happen at once.
   */
  headers?: Record<string, string>;
  /**
   * Drops the connection (socket destroyed) after this many streamed chunks (SSE events, pings
   * included), to test a stream cut mid-answer: the final event never arrives. The stream is
   * then sent close-delimited (`connection: close`, no chunked framing), so the client sees a
   * clean end of the body, exactly like a proxy that gave up; only the missing final event tells.
   * A non-streaming answer is cut after half of its body. Default: never cut.
   */
  cutAfterChunks?: number;
}

/** The wire formats the scripted model server speaks. */
export type WireFormat = 'chat-completions' | 'responses' | 'anthropic-messages';

/**
 * One model request as a {@link ModelScript} sees it, whichever wire format the client spoke: the
 * conversation as Chat Completions-style `messages` (`system` / `user` / `assistant` with
 * `tool_calls` / `tool` results by `tool_call_id`) and the offered function `tools`.
 *
 * Responses `instructions` and `input` items (`message`, `function_call`,
 * `function_call_output`) and Anthropic `system` and `messages` (`text`, `thinking`, `tool_use`,
 * `tool_result` blocks) are converted to this shape; a Chat Completions body already is it. A
 * plain {@link ChatRequest} is therefore a valid script input too (handy in unit tests).
 */
export interface ModelScriptRequest {
  /** The wire format the client used; absent means `chat-completions`. */
  format?: WireFormat;
  /** The model name the client asked for. */
  model: string;
  messages: ChatRequestMessage[];
  /** The function tools on offer; absent when the request offered none. */
  tools?: ChatTool[];
  /** True when the client asked for a streamed answer. */
  stream?: boolean | null;
  /** The parsed JSON body exactly as the client sent it, for format-specific checks. */
  body?: Record<string, unknown>;
}

/**
 * Decides the scripted model's reply to one request (normalised to {@link ModelScriptRequest}).
 * May be async; a thrown error becomes an HTTP 500 error response.
 */
export type ModelScript = (request: ModelScriptRequest) => ScriptedReply | Promise<ScriptedReply>;

const NUMBER_PATTERN = /(?<![\w.])-?(?:\d+(?:\.\d+)?|\.\d+)/g;
const ADDITION_PATTERN = /\b(?:plus|add|adding|addition|sum)\b|\+|\bwhat\s+is\b|\bwhat's\b/i;
const ECHO_PATTERN = /\becho\s+([\s\S]+)$/i;
const SUM_TOOL_PATTERN = /(?:get-sum|get_sum)$|(?:^|[_\-.:/])add$/;

/** The text of a message `content`: the string itself, or the `text` parts joined. */
function contentText(content: string | ChatContentPart[] | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function findTool(
  request: ModelScriptRequest,
  matches: (name: string) => boolean,
): string | undefined {
  return request.tools?.find((tool) => tool.type === 'function' && matches(tool.function.name))
    ?.function.name;
}

function stripQuotes(text: string): string {
  const trimmed = text.trim();
  const first = trimmed.at(0);
  if (trimmed.length >= 2 && (first === '"' || first === "'" || first === '`')) {
    if (trimmed.at(-1) === first) return trimmed.slice(1, -1);
  }
  return trimmed;
}

/** A tool message of the conversation with the name of the call it answers. */
interface ToolResultMessage {
  /** The tool's name as the assistant called it; `undefined` when no call has that id. */
  name: string | undefined;
  /** The call's arguments as sent (JSON text). */
  arguments: string | undefined;
  text: string;
}

/** The trailing `tool` messages, oldest first, each with the call it answers. */
function trailingToolResults(messages: readonly ChatRequestMessage[]): ToolResultMessage[] {
  const results: ToolResultMessage[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'tool') break;
    const call = findCall(messages, message.tool_call_id);
    results.unshift({
      name: call?.function.name,
      arguments: call?.function.arguments,
      text: contentText(message.content),
    });
  }
  return results;
}

function findCall(
  messages: readonly ChatRequestMessage[],
  callId: string,
): ChatRequestToolCall | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.tool_calls?.find((candidate) => candidate.id === callId);
    if (call !== undefined) return call;
  }
  return undefined;
}

/** The text the agent runtime sends for a call the user declined (see `call-task.ts`). */
const DECLINED_TEXT = 'The user declined this tool call';
/** `- name: description` lines of a `tool_search` result. */
const FOUND_TOOL_LINE = /^- ([A-Za-z0-9_-]{1,64}):/gm;

/** What the script answers once tool results came back (see {@link defaultModelScript}). */
function replyToToolResults(
  request: ModelScriptRequest,
  results: readonly ToolResultMessage[],
): ScriptedReply {
  const declined = results.filter((result) => result.text.includes(DECLINED_TEXT));
  if (declined.length > 0 && declined.length === results.length) {
    const names = declined.map((result) => result.name ?? 'tool').join(', ');
    return { text: `You declined the ${names} call, so I did not run it.` };
  }
  const search = results.find((result) => result.name?.endsWith(TOOL_SEARCH) === true);
  if (search !== undefined) {
    const found = [...search.text.matchAll(FOUND_TOOL_LINE)].map((match) => match[1] ?? '');
    const next = found.find((name) => offeredTool(request, name) !== undefined);
    const offered = next === undefined ? undefined : offeredTool(request, next);
    if (offered !== undefined) {
      const keywords = searchKeywords(search.arguments);
      return {
        toolCalls: [
          {
            name: offered.function.name,
            arguments: sensibleArguments(offered.function.parameters, keywords),
          },
        ],
      };
    }
  }
  return { text: `The tool returned: ${results.map((result) => result.text).join('\n')}` };
}

const TOOL_SEARCH = 'tool_search';

function offeredTool(request: ModelScriptRequest, name: string): ChatTool | undefined {
  return request.tools?.find((tool) => tool.type === 'function' && tool.function.name === name);
}

/** The `query` a `tool_search` call was made with (empty when it cannot be read). */
function searchKeywords(rawArguments: string | undefined): string {
  if (rawArguments === undefined) return '';
  try {
    const parsed = JSON.parse(rawArguments) as { query?: unknown };
    return typeof parsed.query === 'string' ? parsed.query : '';
  } catch {
    return '';
  }
}

/**
 * Arguments for a tool the script knows nothing about, from its JSON Schema: every `required`
 * property without a `default` gets a plausible value (the first `enum` value or `const`;
 * strings the search keywords, or `"example"`; numbers their `minimum`, else 1; booleans
 * `false`; arrays `[]`; objects `{}`). Optional properties are left out, so `{}` for a tool
 * whose properties are all optional.
 */
export function sensibleArguments(
  schema: Record<string, unknown> | undefined,
  keywords = '',
): Record<string, unknown> {
  const properties = (schema?.['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema?.['required']) ? (schema['required'] as unknown[]) : [];
  const result: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== 'string') continue;
    const property = properties[name] ?? {};
    if ('default' in property) continue;
    result[name] = plausibleValue(property, keywords);
  }
  return result;
}

function plausibleValue(property: Record<string, unknown>, keywords: string): unknown {
  if ('const' in property) return property['const'];
  const choices = property['enum'];
  if (Array.isArray(choices) && choices.length > 0) return choices[0];
  const type = Array.isArray(property['type']) ? property['type'][0] : property['type'];
  switch (type) {
    case 'integer':
    case 'number': {
      const minimum = property['minimum'];
      return typeof minimum === 'number' ? minimum : 1;
    }
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return keywords.trim() === '' ? 'example' : keywords.trim();
  }
}

const FIND_TOOL_PATTERN =
  /\b(?:find|search(?:\s+for)?|look\s+for|load)\s+(?:me\s+)?(?:an?\s+|the\s+|some\s+)?tools?\b(?:\s+(?:for|to|that|which|about|on))?\s*([\s\S]*)$/i;
const DELETE_PATTERN = /\b(?:delete|remove)\s+(?:the\s+)?(?:file\s+)?["'`]?([\w./-]+)["'`]?/i;
const READ_PATTERN =
  /\b(?:read|open|show)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?["'`]?([\w/-]+\.\w+)["'`]?/i;
const BOOK_PATTERN = /\b(?:book|reserve)\b[\s\S]*\btable\b/i;
const RESTAURANT_PATTERN = /\btable\s+at\s+([^,.!?]+?)\s*(?:[,.!?]|$)/i;
const CONNECT_PATTERN =
  /\bconnect\s+(?:to\s+)?(?:my\s+|the\s+|an?\s+)?([\p{L}\d][\p{L}\d _-]*?)(?:\s+account)?\s*[.!?]*$/iu;
const COUNT_PATTERN = /\bcount\s+(?:to|up\s+to)\s+(\d+)/i;
const LONG_OPERATION_PATTERN = /\blong[\s-]*(?:running\s+)?(?:operation|task|job)\b/i;
const WEATHER_PATTERN = /\bweather\b(?:[\s\S]*?\b(?:in|for|at)\s+([^?.!,]+))?/i;
const TRAILING_TIME_WORDS = /\s+(?:today|tomorrow|now|right now|please)$/i;
const ELICITATION_PATTERN = /\belicitation\b|\bask\s+me\b|\bmy\s+details\b/i;
const IMAGE_PATTERN = /\b(?:image|picture|photo)\b/i;

/** One rule for the last user message: the reply, or `undefined` when it does not apply. */
type UserRule = (text: string, request: ModelScriptRequest) => ScriptedReply | undefined;

function call(name: string, args: Record<string, unknown>): ScriptedReply {
  return { toolCalls: [{ name, arguments: args }] };
}

const userRules: readonly UserRule[] = [
  // echo <text>
  (text, request) => {
    const match = ECHO_PATTERN.exec(text);
    const tool = findTool(request, (name) => name.endsWith('echo'));
    if (match?.[1] === undefined || tool === undefined) return undefined;
    const message = stripQuotes(match[1]);
    return message.length > 0 ? call(tool, { message }) : undefined;
  },
  // what is 2 plus 3?
  (text, request) => {
    const numbers = [...text.matchAll(NUMBER_PATTERN)].map((match) => Number(match[0]));
    const tool = findTool(request, (name) => SUM_TOOL_PATTERN.test(name));
    const [a, b] = numbers;
    if (
      a === undefined ||
      b === undefined ||
      !Number.isFinite(a) ||
      !Number.isFinite(b) ||
      !ADDITION_PATTERN.test(text) ||
      tool === undefined
    ) {
      return undefined;
    }
    return call(tool, { a, b });
  },
  // find a tool for invoices
  (text, request) => {
    const match = FIND_TOOL_PATTERN.exec(text);
    const tool = findTool(request, (name) => name.endsWith(TOOL_SEARCH));
    if (match === null || tool === undefined) return undefined;
    const keywords = (match[1] ?? '').replace(/[?.!]+$/, '').trim();
    return call(tool, { query: keywords === '' ? text.trim() : keywords });
  },
  // delete notes.txt
  (text, request) => {
    const match = DELETE_PATTERN.exec(text);
    const tool = findTool(request, (name) => name.endsWith('delete_file'));
    if (match?.[1] === undefined || tool === undefined) return undefined;
    return call(tool, { path: match[1].replace(/[.,!?]+$/, '') });
  },
  // read notes.txt
  (text, request) => {
    const match = READ_PATTERN.exec(text);
    const tool = findTool(request, (name) => name.endsWith('read_file'));
    if (match?.[1] === undefined || tool === undefined) return undefined;
    return call(tool, { path: match[1] });
  },
  // book a table (at Luigi's)
  (text, request) => {
    const tool = findTool(request, (name) => name.endsWith('book_table'));
    if (!BOOK_PATTERN.test(text) || tool === undefined) return undefined;
    const restaurant = RESTAURANT_PATTERN.exec(text)?.[1]?.trim();
    return call(tool, restaurant === undefined || restaurant === '' ? {} : { restaurant });
  },
  // connect my calendar
  (text, request) => {
    const match = CONNECT_PATTERN.exec(text.trim());
    const tool = findTool(request, (name) => name.endsWith('connect_account'));
    if (match?.[1] === undefined || tool === undefined) return undefined;
    return call(tool, { service: match[1].trim() });
  },
  // count to 5 slowly / run a long operation
  (text, request) => {
    const count = COUNT_PATTERN.exec(text);
    const long = LONG_OPERATION_PATTERN.test(text);
    if (count === null && !long) return undefined;
    const steps = Math.min(Math.max(Number(count?.[1] ?? 5), 1), 100);
    const slowCount = findTool(request, (name) => name.endsWith('slow_count'));
    const longOperation = findTool(request, (name) =>
      name.endsWith('trigger-long-running-operation'),
    );
    const slowCall =
      slowCount === undefined ? undefined : call(slowCount, { count: steps, delayMs: 400 });
    const longCall =
      longOperation === undefined
        ? undefined
        : call(longOperation, { duration: Math.ceil(steps * 0.4), steps });
    return count !== null ? (slowCall ?? longCall) : (longCall ?? slowCall);
  },
  // weather in Oslo
  (text, request) => {
    const match = WEATHER_PATTERN.exec(text);
    const tool = findTool(request, (name) => name.endsWith('get_weather'));
    if (match === null || tool === undefined) return undefined;
    const city = (match[1] ?? '').trim().replace(TRAILING_TIME_WORDS, '').trim();
    return call(tool, { city: city === '' ? 'Oslo' : city });
  },
  // ask me for my details (a pushed form elicitation)
  (text, request) => {
    const tool = findTool(request, (name) => name.endsWith('trigger-elicitation-request'));
    return ELICITATION_PATTERN.test(text) && tool !== undefined ? call(tool, {}) : undefined;
  },
  // show me an image
  (text, request) => {
    const tool = findTool(request, (name) => name.endsWith('get-tiny-image'));
    return IMAGE_PATTERN.test(text) && tool !== undefined ? call(tool, {}) : undefined;
  },
];

/**
 * The default script of the scripted model server, so the playground works offline. Every rule
 * that calls a tool applies only when a tool with a matching name is offered; names match by
 * suffix, so server prefixes (`demo_delete_file`) are fine, and the first offered match wins.
 *
 * 1. When the last message is a `tool` result (or several):
 *    - every result is the runtime's "The user declined this tool call" → replies
 *      `You declined the <tool> call, so I did not run it.`;
 *    - one of them answers `tool_search` and names a found tool (`- name: …` lines) that is
 *      offered now → calls the first such tool, with {@link sensibleArguments} from its schema
 *      (the search keywords for required strings; `{}` when nothing is required);
 *    - otherwise replies `The tool returned: <content>` (multi-part content has its text parts
 *      joined; several trailing results are joined with newlines).
 * 2. Otherwise, the last `user` message, first matching rule:
 *    - `echo <text>` → `…echo` with `{ message: <text> }` (surrounding quotes stripped);
 *    - at least two numbers (integers, decimals, negatives) and one of `plus`, `add`, `sum`, `+`,
 *      `what is` → `…get-sum`, `…get_sum` or `add` (optionally prefixed, e.g. `math_add`) with
 *      `{ a: <first>, b: <second> }`;
 *    - `find a tool for <keywords>` (also `search for tools …`, `look for a tool …`) →
 *      `tool_search` with `{ query: <keywords> }`;
 *    - `delete <file>` / `remove <file>` → `…delete_file` with `{ path }`;
 *    - `read <file.ext>` / `open …` / `show …` → `…read_file` with `{ path }`;
 *    - `book a table` (`reserve … table`, optional `at <restaurant>`) → `…book_table` with `{}`
 *      or `{ restaurant }`;
 *    - `connect my <service>` → `…connect_account` with `{ service }`;
 *    - `count to <n>` → `…slow_count` with `{ count: n, delayMs: 400 }`, else
 *      `…trigger-long-running-operation` with `{ duration: ceil(0.4 n), steps: n }`;
 *      `long operation` (`long-running task`, …) prefers the latter (n = 5; n capped to 1–100);
 *    - `weather in <city>` → `…get_weather` with `{ city }` (default `Oslo`);
 *    - `elicitation`, `ask me …`, `my details` → `…trigger-elicitation-request` with `{}`;
 *    - `image`, `picture`, `photo` → `…get-tiny-image` with `{}`.
 * 3. Otherwise replies with a fixed self-description that quotes the user's text.
 */
export const defaultModelScript: ModelScript = (request) => {
  const messages = request.messages;
  if (messages.at(-1)?.role === 'tool') {
    return replyToToolResults(request, trailingToolResults(messages));
  }

  const lastUser = messages.findLast((message) => message.role === 'user');
  const userText = lastUser === undefined ? '' : contentText(lastUser.content);
  for (const rule of userRules) {
    const reply = rule(userText, request);
    if (reply !== undefined) return reply;
  }

  return {
    text:
      'I am a scripted model (no real LLM). Ask me "what is 2 plus 3?" and I will call the ' +
      `get-sum tool. You said: ${userText}`,
  };
};

/**
 * A script that answers the n-th request with `replies[n]`; once the list is used up every
 * further request gets the last reply. Each returned script keeps its own position.
 *
 * @throws SwitchboardError `invalid_input` when `replies` is empty.
 */
export function scriptFromReplies(replies: ScriptedReply[]): ModelScript {
  if (replies.length === 0) {
    throw new SwitchboardError('invalid_input', 'scriptFromReplies needs at least one reply.');
  }
  const list = [...replies];
  let position = 0;
  return () => {
    const reply = list[Math.min(position, list.length - 1)] ?? {};
    position += 1;
    return reply;
  };
}
