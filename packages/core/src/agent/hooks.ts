import type { FunctionCallItem, ToolOutput, Usage } from '../vocabulary/items.ts';
import type { ModelRequest } from '../model/model.ts';
import type { Tool } from '../tools/tool-types.ts';

/** Facts every hook receives. */
export interface HookScope {
  runId: string;
  threadId: string;
  runContext: unknown;
}

/** What `beforeToolCall` may decide. Returning nothing means `continue`. */
export type BeforeToolCallDecision =
  /** Run the tool as usual. */
  | { action: 'continue' }
  /** Do not run the tool; give the model this output instead. */
  | { action: 'answer'; output: ToolOutput | string }
  /** Hold the call for a human's approval, with an optional message for the approver. */
  | { action: 'interrupt'; message?: string };

/**
 * Lifecycle hooks (docs/architecture.md, "The life of a run"). Each may be async. A hook that
 * throws fails the run with a
 * `SwitchboardError` of code `hook_failed` naming the hook; history stays consistent.
 */
export interface AgentHooks {
  /** Before each model call; may return a changed request (e.g. trimmed history). */
  beforeModelCall?(
    event: HookScope & { turn: number; request: ModelRequest },
  ): ModelRequest | void | Promise<ModelRequest | void>;
  /** After each model call, with what the model produced. */
  afterModelCall?(
    event: HookScope & { turn: number; text: string; calls: FunctionCallItem[]; usage?: Usage },
  ): void | Promise<void>;
  /** Before a tool runs (after approval, if any): continue, answer in its place, or interrupt. */
  beforeToolCall?(
    event: HookScope & { call: FunctionCallItem; tool: Tool | undefined; arguments: unknown },
  ): BeforeToolCallDecision | void | Promise<BeforeToolCallDecision | void>;
  /** After a tool settled; may return a replacement output. */
  afterToolCall?(
    event: HookScope & { call: FunctionCallItem; tool: Tool | undefined; output: ToolOutput },
  ): ToolOutput | void | Promise<ToolOutput | void>;
}
