import type { ToolAnnotations } from '../tools/tool-annotations.ts';
import type { JsonSchema } from '../tools/tool-types.ts';

/**
 * Why a run stopped for a human (DESIGN.md §4): a tool call waiting for approval, or an MCP
 * server asking for input with `elicitation/create` (pushed, 2025 era) or an `input_required`
 * result (MRTR, 2026-07-28).
 */
export interface Interrupt {
  /** The model's call id of the tool call that is held. */
  callId: string;
  /** Provider-facing tool name. */
  toolName: string;
  /** The MCP server's name, for MCP tools. */
  server?: string;
  /** The arguments of the held call (parsed JSON). */
  arguments: unknown;
  /**
   * `approval`: allow the call? `form`: fill `requestedSchema`. `url`: open `url`?
   * `authorization`: the MCP server `server` wants the user to sign in (OAuth): call its
   * `authorize()` (from a click: it opens a popup), then resolve `approve` to make the call again
   * (`reject`/`cancel`: the call fails with "declined"/"cancelled").
   */
  mode: 'approval' | 'form' | 'url' | 'authorization';
  /** The server's message to the user (form and url modes). */
  message?: string;
  /** Restricted JSON Schema of the answer (form mode; MCP `requestedSchema`). */
  requestedSchema?: JsonSchema;
  /** The URL to open after the user agrees (url mode). */
  url?: string;
  /** MCP `elicitationId` (url mode). */
  elicitationId?: string;
  /** The tool's annotations, as hints (approval mode). */
  annotations?: ToolAnnotations;
  /**
   * True when a 2025-era server's pushed request could not be kept (the page was reloaded):
   * resuming re-issues the tool call and the server asks again.
   */
  reissued?: boolean;
}

/**
 * The human's answer to an {@link Interrupt}. For MCP elicitation, `approve` (with `content` in
 * form mode) is sent as `accept`, `reject` as `decline` and `cancel` as `cancel`: the server
 * always receives the user's real answer.
 */
export interface Resolution {
  callId: string;
  action: 'approve' | 'reject' | 'cancel';
  /** Form answers (form mode), validated against `requestedSchema` before they are sent. */
  content?: Record<string, unknown>;
}
