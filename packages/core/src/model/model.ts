import type { Item, Usage } from '../vocabulary/items.ts';
import type { JsonSchema } from '../vocabulary/interrupts.ts';

/** A tool as offered to the model: name, description and JSON Schema of its arguments. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * Reads the bytes of an attachment of the request's thread (`MessageAttachmentPart.attachmentId`)
 * from the history store's attachment store; `undefined` when they are no longer stored.
 */
export type AttachmentReader = (
  attachmentId: string,
  options: { signal: AbortSignal },
) => Promise<Blob | undefined>;

/** One model call: the instructions, the whole history so far and the tools on offer. */
export interface ModelRequest {
  instructions?: string;
  items: readonly Item[];
  tools: readonly ModelToolDefinition[];
  /**
   * Reads the bytes of the items' attachment parts; an adapter calls it when it sends the
   * request (docs/conversations.md, "Attachments"). Absent: attachment parts are sent as
   * references naming the file.
   */
  readAttachment?: AttachmentReader;
}

/** What a model stream yields. Provider adapters translate their wire events to these. */
export type ModelEvent =
  | { type: 'text.delta'; delta: string }
  | { type: 'reasoning.delta'; delta: string }
  /** A complete tool call; `arguments` is the raw JSON string the model produced. */
  | { type: 'tool.call'; callId: string; name: string; arguments: string }
  /**
   * The request has had no response headers for `waitedMs` (`ModelTimeouts.waitingNoticeMs`):
   * it may be queued in the browser behind other requests to `host` (a browser opens at most 6
   * HTTP/1.1 connections per host, and long-lived streams of other tabs can hold them all), or
   * the provider is slow to start. Not a failure: the request keeps waiting up to its time
   * limits. Yielded at most once per stream, before anything else; a UI shows it instead of
   * "Thinking…".
   */
  | { type: 'response.waiting'; host: string; waitedMs: number }
  /** The stream ended normally. */
  | { type: 'done'; usage?: Usage };

/**
 * A language model behind a provider API. `stream` must honour `signal` (abort the HTTP request)
 * and throw a `SwitchboardError` with code `model_error` (or `aborted`) on failure, or `timeout`
 * when a time limit ran out (the built-in adapters take `ModelTimeouts`).
 */
export interface Model {
  /** Provider id, e.g. `openai-chat`. */
  readonly provider: string;
  /** The provider's model name. */
  readonly modelId: string;
  /**
   * The MIME types this model accepts as files attached to user messages, each with the largest
   * size in bytes its provider takes (docs/conversations.md, "Attachments"). `Agent.execute`
   * refuses any other attachment with `invalid_input` before anything is sent or stored.
   * Absent: the model takes no attachments.
   */
  readonly attachmentLimits?: Readonly<Record<string, number>>;
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelEvent>;
}
