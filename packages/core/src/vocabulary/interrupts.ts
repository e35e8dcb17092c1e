/**
 * The words every layer uses for "a human must answer before this tool call can go on". Types
 * only, importing only other vocabulary types: `tools`, `mcp`, `history`, `chat`, `agent` and
 * `@switchboard/react` all speak them (docs/architecture.md, "The vocabulary").
 *
 * One concept, named at three points of its life:
 * - {@link InputRequest}: what a tool (or an MCP server through it) asks for;
 * - {@link Interrupt}: that request attached to the held call, as the run stores and shows it
 *   (plus `approval`, which the agent itself raises before a call runs);
 * - {@link Resolution}: the human's answer to an {@link Interrupt}.
 *
 * MCP's wire shapes (`elicitation/create` params, MRTR `inputRequests` and `requestState`) map
 * onto these in `mcp/call/` (see `mcp/call/resume-state.ts`); they never leave the `mcp` layer.
 */

import type { AppViewRef } from './tool-ui.ts';

/** A JSON Schema object (draft 2020-12), as sent to providers and received from MCP servers. */
export type JsonSchema = Record<string, unknown>;

/**
 * MCP tool annotations (spec 2025-11-25, "Tool annotations"). Every field is optional and unset
 * is not the same as false. They are hints: a server may lie, so they can narrow what a policy
 * allows but never widen it (docs/architecture.md, "Security rules").
 */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * What a tool asks the human for: fill a form (MCP form elicitation), open a URL (MCP URL
 * elicitation), or sign in to the tool's MCP server (OAuth). See `ToolContext.requestInput` and
 * `ToolContext.interrupt`.
 */
export interface InputRequest {
  /**
   * `form`: fill `requestedSchema`. `url`: open `url`. `authorization`: the tool's MCP server
   * wants the user to sign in (OAuth; `McpServer.authorize()`), then the call is made again.
   * `task`: the call follows a long-running MCP task that the client running it left behind
   * (the page was reloaded, the process died): `approve` resumes following it (polling),
   * `reject`/`cancel` gives it up (`tasks/cancel`). `AgentChat` resumes these by itself.
   * `approval`: only with `nested` — a call inside a nested run (a sub-agent's) waits for
   * approval, and this call with it.
   */
  mode: 'form' | 'url' | 'authorization' | 'task' | 'approval';
  /** The server's message to the user (form and url modes). */
  message?: string;
  /** Restricted JSON Schema of the answer (form mode; MCP `requestedSchema`). */
  requestedSchema?: JsonSchema;
  /** The URL to open after the user agrees (url mode). */
  url?: string;
  /** MCP `elicitationId` (url mode). */
  elicitationId?: string;
  /**
   * True when a 2025-era server's pushed request could not be kept (the page was reloaded):
   * resuming re-issues the tool call and the server asks again.
   */
  reissued?: boolean;
  /**
   * Set when the human is asked on behalf of a call inside a nested run: a sub-agent used as
   * this call's tool (`Agent.asTool`) paused on `nested` (docs/conversations.md, "Sub-agents").
   * `mode` and the request fields above are copied from it; `nested.nested` goes one level
   * deeper when that call is itself a sub-agent's.
   */
  nested?: NestedInterrupt;
}

/**
 * The interrupt of a nested run (a sub-agent's, see {@link InputRequest.nested}): the held
 * call's own {@link Interrupt}, plus where that run lives. Resolve the outer call (the
 * `callId` of the interrupt that carries this); the sub-agent hands the answer on to this call.
 */
export interface NestedInterrupt extends Interrupt {
  /** The sub-agent's name (`AgentOptions.name`). */
  agent: string;
  /** The nested run's thread and run, in the sub-agent's history store. */
  threadId: string;
  runId: string;
}

/**
 * Why a run stopped for a human: a tool call waiting for approval (`mode: 'approval'`), or an
 * {@link InputRequest} of a running tool, attached to its held call. MCP servers raise input
 * requests with `elicitation/create` (pushed, 2025 era) or an `input_required` result (MRTR,
 * 2026-07-28).
 */
export interface Interrupt extends Omit<InputRequest, 'mode'> {
  /** The model's call id of the tool call that is held. */
  callId: string;
  /** Provider-facing tool name. */
  toolName: string;
  /** The MCP server's name, for MCP tools. */
  server?: string;
  /** The arguments of the held call (parsed JSON). */
  arguments: unknown;
  /**
   * `approval`: allow the call? Otherwise the {@link InputRequest} mode: `form`, `url`, or
   * `authorization` (the MCP server `server` wants the user to sign in: call its `authorize()`
   * from a click, then resolve `approve` to make the call again; `reject`/`cancel` fail the call
   * with "declined"/"cancelled").
   */
  mode: 'approval' | InputRequest['mode'];
  /** The tool's annotations, as hints (approval mode). */
  annotations?: ToolAnnotations;
  /**
   * Set when an MCP Apps view asked for the held call (`Agent.callToolFromApp`), not the model:
   * an approval dialog says so.
   */
  requestedBy?: AppViewRef;
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

/**
 * What `ToolContext.interrupt` returns: a tool that returns it ends its call for now; the run
 * pauses, and after the human answers the tool runs again with `context.resume` set.
 */
export interface ToolInterruptResult {
  readonly kind: 'switchboard.interrupt';
  request: InputRequest;
  /** Plain JSON the tool needs to continue later, from any client (e.g. MRTR `requestState`). */
  resumeState: unknown;
}

/** What a re-run tool receives after a pause: the human's answer and its own resume state. */
export interface ToolResume {
  resolution: Resolution;
  resumeState: unknown;
}
