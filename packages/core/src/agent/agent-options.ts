import type { HistoryStore, ParentCallRef } from '../history/history-store.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { Model } from '../model/model.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { ToolAnnotations, Resolution } from '../vocabulary/interrupts.ts';
import type { MessageItem } from '../vocabulary/items.ts';
import type { UserMessageInput } from './attachment-input.ts';
import type { AgentHooks } from './hooks.ts';
import type { ModelRetryPolicy } from './model-retry-policy.ts';
import type { StepRunner } from './step-runner.ts';

/**
 * Decides for every tool call whether a human must approve it, on top of each tool's own
 * `needsApproval`. See `destructiveToolsNeedApproval`.
 */
export type ApprovalPolicy = (
  args: unknown,
  annotations: ToolAnnotations | undefined,
  runContext: unknown,
  tool: Tool,
) => boolean | Promise<boolean>;

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** A name for logs and UIs. */
  name: string;
  /** System instructions sent with every model call. */
  instructions?: string;
  model: Model;
  /**
   * Models tried in order when `model` fails: after its retries, or at once when the provider
   * says it is overloaded or the model unavailable (see `ModelRetryPolicy`). Each gets the same
   * request and its own retries; the first that answers serves the rest of the run. Reported as
   * `model.fallback` chunks. Default none.
   */
  fallbackModels?: Model[];
  /**
   * How failed model calls are retried (attempts, backoff with jitter, `Retry-After`, which
   * failures, a total time limit). Defaults in `ModelRetryPolicy`: 3 attempts, 1 s doubling to
   * at most 30 s, half of it jittered, 120 s in all. `{ maxAttempts: 1 }` turns retries off.
   * @throws SwitchboardError `invalid_input` (from the constructor) when a field is invalid.
   */
  modelRetry?: ModelRetryPolicy;
  /** Local tools (see `tool()`). */
  tools?: Tool[];
  /** Remote MCP servers whose tools the agent may call (see `mcpServer()`). */
  mcpServers?: McpServer[];
  /** Where threads are kept. Default: a new `MemoryHistoryStore`. */
  history?: HistoryStore;
  /** Model calls per run before it fails with `max_turns_exceeded`. Default 50. */
  maxTurns?: number;
  /**
   * Asks for approval of calls this policy selects (in addition to `tool.needsApproval`). A
   * policy (or `needsApproval`) that throws holds the call for approval: it fails closed.
   */
  approvalPolicy?: ApprovalPolicy;
  /** Lifecycle hooks around model and tool calls. */
  hooks?: AgentHooks;
  /**
   * How long a running run's claim on its row lasts without renewal, in ms. Default 30 000.
   * While the run is alive the agent renews it every third of this (heartbeat). When a tab
   * closes or a process dies mid-run, the next `execute` on the thread (from any client) finds
   * the lease expired and recovers the run: each tool call without an output gets one saying its
   * outcome is unknown (code `outcome_unknown`; the tool is never re-run automatically), the row
   * becomes `failed`, and the thread continues. Until then, other clients refuse new runs on
   * the thread with `run_in_progress`. Shorter leases recover sooner but write more often.
   * In a browser a page that closed or reloaded is known gone at once (its lease names a Web
   * Lock the page holds, see `RunLease.lock`), so there the lease matters only where Web Locks
   * cannot tell (a frozen or hung page that still holds its lock).
   * Browsers may fire timers in a tab hidden for over 5 minutes only once a minute (Chrome's
   * intensive throttling): if runs go on that long in background tabs, use at least 120 000.
   * @throws SwitchboardError `invalid_input` (from the constructor) when below 3.
   */
  leaseMs?: number;
  /**
   * Append a short section about the deferred tools not loaded yet to the instructions: how
   * many there are per MCP server (or local), how to load them with `tool_search`, up to 40
   * words their descriptions use most (search keywords), and the first 20 by name and first
   * description line, then "… and K more". Its size is bounded (a few KB whatever the number of
   * deferred tools), so deferring keeps the prompt small. Default true; `false` leaves the
   * instructions alone (the model still gets `tool_search`).
   */
  deferredToolsInstructions?: boolean;
  /**
   * The largest file a user message may attach, in bytes (docs/conversations.md,
   * "Attachments"). Default 20 MB (`DEFAULT_MAX_ATTACHMENT_BYTES`); each provider's own limit
   * per type (`Model.attachmentLimits`) applies too. A larger file is refused by `execute` with
   * `invalid_input` before anything is stored or sent.
   */
  maxAttachmentBytes?: number;
}

/**
 * A user message: plain text, a message item, or text with files attached
 * ({@link UserMessageInput}).
 */
export type MessageInput = string | MessageItem | UserMessageInput;

/** Fields every {@link ExecuteInput} may carry. */
interface ExecuteInputBase {
  /** The thread to continue; a new thread (random id) when absent. Required to resume. */
  threadId?: string;
  /** Caller data passed to every tool as `context.runContext` (e.g. the signed-in user). */
  runContext?: unknown;
  /** Aborting it stops the run like `handle.stop()`; also during a retry's wait. */
  signal?: AbortSignal;
  /** This run's retry policy, over the agent's `modelRetry` field by field. */
  modelRetry?: ModelRetryPolicy;
  /** This run's fallback models instead of the agent's `fallbackModels` (`[]`: none). */
  fallbackModels?: Model[];
  /**
   * The parent run's call this run works for, stored on its rows (`RunRecord.parentCall`). Set
   * by `Agent.asTool`; a resume keeps the link of the paused row.
   */
  parentCall?: ParentCallRef;
  /**
   * How this run's steps run — each model call, tool execution (an MCP call is one) and MCP
   * listing (docs/architecture.md, "Steps"). Default `inProcessSteps`: today's loop. A durable
   * host passes a runner that journals each step (`@switchboard/restate`).
   */
  steps?: StepRunner;
  /**
   * The id of the new run (default a random UUID); ignored on a resume, which keeps the paused
   * run's id. A durable host passes one it journaled, so a replay continues the same run.
   */
  runId?: string;
}

/**
 * Input of {@link Agent.execute}: new `messages` start a run; `resolutions` answer the
 * interrupts of the thread's paused run and continue it under the same run id.
 */
export type ExecuteInput =
  | (ExecuteInputBase & {
      messages: MessageInput | MessageInput[];
      resolutions?: never;
      /**
       * The run the new run follows: a branch point (docs/conversations.md, "Branches"). The
       * model reads that run's branch only (its ancestors' items, root first). `null`: start
       * from the thread's beginning (an edit of the first message). Absent: the thread's
       * selected branch (`HistoryStore.selectBranch`; the newest run when none was selected).
       * An id the thread does not have fails the run with `invalid_input`, writing nothing.
       */
      parentRunId?: string | null;
    })
  | (ExecuteInputBase & {
      threadId: string;
      resolutions: Resolution[];
      messages?: never;
      parentRunId?: never;
    });
