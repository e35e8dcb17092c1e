import type {
  InputRequest,
  JsonSchema,
  Resolution,
  ToolAnnotations,
  ToolInterruptResult,
  ToolResume,
} from '../vocabulary/interrupts.ts';
import type { ToolOutput, Usage } from '../vocabulary/items.ts';
import type { ToolUi } from '../vocabulary/tool-ui.ts';

/** A progress report from a running tool (MCP `notifications/progress` shape). */
export interface ToolProgress {
  /** Increases with every report. */
  progress: number;
  /** Total units of work, when known. */
  total?: number;
  message?: string;
  /**
   * The MCP task the call is following (spec 2025-11-25 "Tasks", extension
   * `io.modelcontextprotocol/tasks`): its id and last status, reported at every poll.
   */
  task?: ToolTaskStatus;
}

/** An MCP task's id and status as a progress report carries it (see {@link ToolProgress}). */
export interface ToolTaskStatus {
  taskId: string;
  /** `working`, `input_required`, `completed`, `failed` or `cancelled`. */
  status: string;
}

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is stopped or the tool times out. */
  signal: AbortSignal;
  /** The model's call id for this invocation. */
  callId: string;
  threadId: string;
  runId: string;
  /** The caller's per-run context (`execute({ runContext })`), e.g. the signed-in user. */
  runContext: unknown;
  /** Reports progress; always safe to call, also after the call settled (then ignored). */
  reportProgress(progress: ToolProgress): void;
  /**
   * Asks the human while the call stays open (a 2025-era pushed `elicitation/create`). The run
   * pauses once every other call of the turn has settled or is waiting too; the promise
   * resolves with the answer when the run is resumed in this process. `resumeState` is stored
   * so that, after a reload, the call can be re-issued.
   */
  requestInput(request: InputRequest, resumeState?: unknown): Promise<Resolution>;
  /**
   * Ends this call for now and pauses the run for the human (MRTR `input_required`). Return its
   * result from `execute`. The tool is run again with `context.resume` once the human answered.
   */
  interrupt(request: InputRequest, resumeState: unknown): ToolInterruptResult;
  /** Set when the call runs again after a pause. */
  resume?: ToolResume;
  /**
   * Makes the running call resumable by another client: `request` and `resumeState` are stored
   * with the run now, so if this client goes away while the call runs (the page reloads, the
   * process dies), the run is recovered as paused on this call (its `request` the interrupt)
   * instead of closing it as `outcome_unknown`, and resuming runs the tool again with
   * `context.resume`. MCP calls use it for the task they follow (`mode: 'task'`). Absent where
   * nothing is stored (direct calls).
   */
  keepResumable?(request: InputRequest, resumeState: unknown): void;
  /**
   * Streams a chunk of a nested run (a sub-agent's run, `Agent.asTool`) into this call's run,
   * where it arrives wrapped in a `tool.nested` chunk of this call. The chunk is the nested
   * run's own (its `runId` and `sequence`); its type is the agent layer's `Chunk`, named here
   * only by the fields every chunk has. Ignored once the call settled. Absent where nothing
   * streams (direct calls).
   */
  reportNested?(chunk: NestedChunkSource): void;
  /**
   * Adds model usage spent on behalf of this call (a sub-agent's model calls) to the run's
   * usage. Report each token once. Absent where there is no run (direct calls).
   */
  reportUsage?(usage: Usage): void;
}

/** What {@link ToolContext.reportNested} needs of a chunk: a nested run's `Chunk`. */
export interface NestedChunkSource {
  type: string;
  runId: string;
  sequence: number;
}

/**
 * Decides per call whether a human must approve it (docs/architecture.md, "The life of an
 * interrupt").
 */
export type ApprovalPredicate = (
  args: unknown,
  annotations: ToolAnnotations | undefined,
  runContext: unknown,
) => boolean | Promise<boolean>;

/**
 * A tool the model can call (docs/architecture.md, "The vocabulary"). Build one with `tool()` or
 * get them from an MCP
 * server (`mcpServer()`).
 */
export interface Tool {
  /** Provider-facing name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: JsonSchema;
  annotations?: ToolAnnotations;
  /** Where the tool comes from, e.g. an MCP server's name; absent for local tools. */
  server?: string;
  /** Hold each call for a human's approval: always, or when the predicate says so. Default no. */
  needsApproval?: boolean | ApprovalPredicate;
  /**
   * Keep the tool out of the model's tool list until `tool_search` finds it (saves prompt
   * space with many tools). Default false.
   */
  deferred?: boolean;
  /**
   * MCP Apps metadata (`_meta.ui`): the view rendering its results and who may call it. A tool
   * whose `visibility` lacks `'model'` never reaches the model (MCP Apps 2026-01-26, "Visibility").
   */
  ui?: ToolUi;
  /**
   * Runs the tool. `args` is the parsed JSON the model sent. Return a string, a
   * {@link ToolOutput}, or any JSON value (serialised for the model). Throwing gives the model an
   * error output; the run goes on.
   */
  execute(args: unknown, context: ToolContext): Promise<unknown>;
}

/** A value a tool returned, normalised to a {@link ToolOutput}. */
export function toToolOutput(value: unknown): ToolOutput {
  if (typeof value === 'string') return { text: value };
  if (isToolOutput(value)) return value;
  if (value === undefined) return { text: '' };
  return { text: JSON.stringify(value) };
}

/** True when a tool returned {@link ToolContext.interrupt}'s result. */
export function isToolInterruptResult(value: unknown): value is ToolInterruptResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'switchboard.interrupt'
  );
}

function isToolOutput(value: unknown): value is ToolOutput {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { text?: unknown }).text === 'string' &&
    Object.keys(value).every((key) =>
      ['text', 'isError', 'parts', 'structuredContent', 'error', 'ui'].includes(key),
    )
  );
}
