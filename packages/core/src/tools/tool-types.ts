import type { ToolOutput } from '../items.ts';
import type { ToolAnnotations } from './tool-annotations.ts';

/** A JSON Schema object (draft 2020-12), as sent to providers and received from MCP servers. */
export type JsonSchema = Record<string, unknown>;

/** A progress report from a running tool (MCP `notifications/progress` shape). */
export interface ToolProgress {
  /** Increases with every report. */
  progress: number;
  /** Total units of work, when known. */
  total?: number;
  message?: string;
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
}

/**
 * A tool the model can call (DESIGN.md §3). Build one with `tool()` or get them from an MCP
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

function isToolOutput(value: unknown): value is ToolOutput {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { text?: unknown }).text === 'string' &&
    Object.keys(value).every((key) =>
      ['text', 'isError', 'parts', 'structuredContent', 'error'].includes(key),
    )
  );
}
