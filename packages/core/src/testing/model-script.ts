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

/**
 * The default script of the scripted model server, so the playground works offline:
 *
 * 1. When the last message is a `tool` result (or several), replies
 *    `The tool returned: <content>` (multi-part content has its text parts joined; several trailing
 *    results are joined with newlines).
 * 2. Otherwise, looking at the last `user` message:
 *    - `echo <text>` with a tool whose name ends with `echo` offered → calls it with
 *      `{ message: <text> }` (surrounding quotes stripped);
 *    - a message with at least two numbers (integers, decimals, negatives) and one of `plus`,
 *      `add`, `sum`, `+`, `what is`, with a tool named `…get-sum`, `…get_sum` or `add` (optionally
 *      prefixed, e.g. `math_add`) offered → calls it with `{ a: <first>, b: <second> }`.
 * 3. Otherwise replies with a fixed self-description that quotes the user's text.
 */
export const defaultModelScript: ModelScript = (request) => {
  const messages = request.messages;
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const results: string[] = [];
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index];
      if (message?.role !== 'tool') break;
      results.unshift(contentText(message.content));
    }
    return { text: `The tool returned: ${results.join('\n')}` };
  }

  const lastUser = messages.findLast((message) => message.role === 'user');
  const userText = lastUser === undefined ? '' : contentText(lastUser.content);

  const echoMatch = ECHO_PATTERN.exec(userText);
  const echoTool = findTool(request, (name) => name.endsWith('echo'));
  if (echoMatch?.[1] !== undefined && echoTool !== undefined) {
    const message = stripQuotes(echoMatch[1]);
    if (message.length > 0) {
      return { toolCalls: [{ name: echoTool, arguments: { message } }] };
    }
  }

  const numbers = [...userText.matchAll(NUMBER_PATTERN)].map((match) => Number(match[0]));
  const sumTool = findTool(request, (name) => SUM_TOOL_PATTERN.test(name));
  const [a, b] = numbers;
  if (
    a !== undefined &&
    b !== undefined &&
    Number.isFinite(a) &&
    Number.isFinite(b) &&
    ADDITION_PATTERN.test(userText) &&
    sumTool !== undefined
  ) {
    return { toolCalls: [{ name: sumTool, arguments: { a, b } }] };
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
