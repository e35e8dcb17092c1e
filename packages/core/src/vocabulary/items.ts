import type { ToolErrorCode } from './error-codes.ts';
import type { AppViewRef, ToolCallUi } from './tool-ui.ts';

/**
 * History items: the conversation as the model sees it, in the Responses-API shape that every
 * provider adapter converts from. A thread's history is the concatenation of its runs' items.
 */

/**
 * A resource attached to a user message as context (an MCP `resources/read` body the app chose,
 * docs/mcp-servers.md, "Resources as context"). Each provider adapter converts it: text as
 * text, an image as an image where the provider accepts it, anything else (other binaries, a
 * body left out for its size) as a reference naming the URI, MIME type and size. Never dropped.
 */
export interface MessageResourcePart {
  type: 'resource';
  uri: string;
  mimeType?: string;
  /** The text body. */
  text?: string;
  /** The binary body, base64. */
  blob?: string;
  /** The body's size in bytes (UTF-8 bytes of text, decoded bytes of a blob). */
  size?: number;
  /** Set when the body was too large to inline: neither `text` nor `blob` is present. */
  omitted?: 'too_large';
  /** The resource's title or name, for people. */
  title?: string;
  /** The MCP server it was read from. */
  server?: string;
}

/**
 * A file or image the user attached to a message (docs/conversations.md, "Attachments"). The
 * bytes are not here: they live in the history store's `AttachmentStore` under `attachmentId`
 * (the SHA-256 digest of the bytes, lowercase hex, unique within the thread), so a thread row
 * stays small whatever is attached. Each provider adapter reads the bytes when it sends the
 * request and converts the part to its own format (an image, a document, or a reference naming
 * the file when its bytes are gone). Never dropped.
 */
export interface MessageAttachmentPart {
  type: 'attachment';
  /** Key of the bytes in the thread's attachment store: their SHA-256 digest, lowercase hex. */
  attachmentId: string;
  /** The file's name as the user gave it (`File.name`), for people and for providers that ask. */
  name: string;
  /** The bytes' MIME type, e.g. `image/png`, `application/pdf`. */
  mimeType: string;
  /** The size of the bytes. */
  size: number;
}

/** A part of a user message after its text: an MCP resource or an attached file. */
export type MessagePart = MessageResourcePart | MessageAttachmentPart;

/** A text message from the user, the assistant or the system. */
export interface MessageItem {
  type: 'message';
  role: 'user' | 'assistant' | 'system';
  /** Plain text; rendered as text, never as HTML. */
  content: string;
  /**
   * Resources and files attached to a user message, in order after `content` (files as
   * references to their bytes, see {@link MessageAttachmentPart}).
   */
  parts?: MessagePart[];
  /**
   * Set on model context an MCP Apps view sent (`ui/update-model-context`,
   * `Agent.updateModelContextFromApp`): untrusted text written by the app, not the user. The
   * model sees only the latest one per view, labelled with the view; chat UIs do not show it as
   * a message.
   */
  appContext?: AppViewRef;
}

/** The model asked for a tool call. `arguments` is the raw JSON string the model produced. */
export interface FunctionCallItem {
  type: 'function_call';
  /** Provider call id; unique within a thread. */
  callId: string;
  /** The provider-facing tool name (docs/architecture.md, "Tool names"). */
  name: string;
  arguments: string;
  /**
   * Set when an MCP Apps view asked for this call (`Agent.callToolFromApp`), not the model. Such
   * a call and its output are kept in history and shown, but never sent to the model.
   */
  requestedBy?: AppViewRef;
}

/**
 * A content part of a tool result that is not plain text (MCP content blocks, docs/architecture.md,
 * "The vocabulary").
 */
export type ToolResultPart =
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: Record<string, unknown> }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string; description?: string }
  /**
   * A content block of a type this client does not know (from a newer server, or an extension):
   * kept as the server sent it, never dropped and never a reason to reject the result.
   * `contentType` is the block's own `type`.
   */
  | { type: 'opaque'; contentType: string; block: Record<string, unknown> };

/** What a tool produced, as stored in history and shown to the model. */
export interface ToolOutput {
  /** All text blocks joined with a newline; what the model reads. */
  text: string;
  /** True when the tool reported an error (MCP `isError`) or threw. The model sees an error. */
  isError?: boolean;
  /** Non-text content blocks, kept as they are. */
  parts?: ToolResultPart[];
  /** MCP `structuredContent`, kept as sent. */
  structuredContent?: Record<string, unknown>;
  /**
   * The MCP Apps view (`_meta.ui.resourceUri` of the tool) that renders this output; kept in
   * history so a reopened thread mounts the same view. Never sent to the model.
   */
  ui?: ToolCallUi;
  /** Machine-readable error facts (a {@link ToolErrorCode}: ours, or a JSON-RPC number), when `isError`. */
  error?: {
    /**
     * Switchboard's and MCP's codes are {@link ToolErrorCode}s; a tool or hook of the app may
     * use codes of its own (any string).
     */
    code: ToolErrorCode | (string & {});
    message: string;
  };
}

/**
 * The output for one {@link FunctionCallItem}; exactly one per call (docs/architecture.md,
 * "Invariants").
 */
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  callId: string;
  output: ToolOutput;
}

/** Reasoning text a provider streamed, kept for display. */
export interface ReasoningItem {
  type: 'reasoning';
  text: string;
}

/** One entry of a thread's history. */
export type Item = MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem;

/** Token usage of a run or a model call, normalised across providers. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}
