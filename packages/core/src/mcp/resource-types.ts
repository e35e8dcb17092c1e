import type { ToolResultPart } from '../vocabulary/items.ts';

/**
 * Default of `McpServerOptions.maxResourceBytes`: a resource body larger than 1 MiB
 * (1 048 576 bytes, counted as UTF-8 for text and decoded bytes for `blob`) is not inlined.
 */
export const DEFAULT_MAX_RESOURCE_BYTES = 1_048_576;

/** A resource a server lists (`resources/list`, spec 2025-11-25 "Resources"). */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The body's size in bytes, when the server says. */
  size?: number;
}

/** A resource template a server lists (`resources/templates/list`): an RFC 6570 URI template. */
export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/**
 * One body of a `resources/read` result. Text and binary (`blob`, base64) keep their MIME type
 * and carry their `size` in bytes (UTF-8 bytes for text, decoded bytes for a blob). A body over
 * the size limit (`McpServerOptions.maxResourceBytes`) comes without its data:
 * `omitted: 'too_large'`, with its `size`, so a UI can say so and a model gets a reference.
 */
export type McpResourceContents = McpResourceContentsBase &
  ({ text: string } | { blob: string } | { omitted: 'too_large'; kind: 'text' | 'blob' });

/** What every body of {@link McpResourceContents} carries. */
export interface McpResourceContentsBase {
  uri: string;
  mimeType?: string;
  /** Bytes of the body (UTF-8 text, or the decoded base64 blob). */
  size: number;
  /** The body's `_meta` as the server sent it (e.g. MCP Apps `_meta.ui.csp` on a view). */
  _meta?: Record<string, unknown>;
}

/** An open resource subscription (`McpServer.subscribeResource`). */
export interface McpResourceSubscription {
  readonly uri: string;
  /**
   * Stops the listener; the last listener of a URI ends the subscription on the wire
   * (`resources/unsubscribe`, or closing the 2026-07-28 `subscriptions/listen` stream). Idempotent;
   * never rejects.
   */
  close(): Promise<void>;
}

/** An argument of a prompt (`prompts/list`). */
export interface McpPromptArgument {
  name: string;
  title?: string;
  description?: string;
  required: boolean;
}

/** A prompt a server lists (`prompts/list`, spec 2025-11-25 "Prompts"). */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments: McpPromptArgument[];
}

/**
 * One message of a `prompts/get` result: its text, and its non-text content (image, audio,
 * embedded `resource`, `resource_link`) as parts, never dropped.
 */
export interface McpPromptMessage {
  role: 'user' | 'assistant';
  text: string;
  parts?: ToolResultPart[];
}

/** A `prompts/get` result. */
export interface McpPromptResult {
  description?: string;
  messages: McpPromptMessage[];
}

/**
 * What `completion/complete` completes an argument of (spec 2025-11-25 "Completion"): a prompt
 * by name, or a resource template by its URI template.
 */
export type McpCompletionReference =
  { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Suggestions for one argument (`completion/complete`): at most 100 values. */
export interface McpCompletion {
  values: string[];
  /** How many matches exist in all, when the server says. */
  total?: number;
  /** More matches exist than `values` holds. */
  hasMore?: boolean;
}
