import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { HistoryStore, RunRecord, RunStatus } from '../history/history-store.ts';
import { ReplayChannel } from '../internal/replay-channel.ts';
import {
  addUsage,
  type FunctionCallItem,
  type Item,
  type MessageItem,
  type ToolOutput,
  type Usage,
} from '../items.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { AgentOptions } from './agent.ts';
import type { Chunk, ChunkPayload } from './chunks.ts';
import { executeToolCall } from './execute-tool-call.ts';
import type { RunHandle, RunOutcome, RunResult } from './run-result.ts';

const DEFAULT_MAX_TURNS = 50;

/** Everything one run needs. */
export interface RunSetup {
  agent: Readonly<AgentOptions>;
  history: HistoryStore;
  threadId: string;
  messages: MessageItem[];
  runContext: unknown;
  signal: AbortSignal | undefined;
}

/** Starts the loop in the background and returns its handle (see `Agent.execute`). */
export function startRun(setup: RunSetup): RunHandle {
  const runId = crypto.randomUUID();
  const channel = new ReplayChannel<Chunk>();
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(setup.signal?.reason);
  if (setup.signal?.aborted) controller.abort(setup.signal.reason);
  else setup.signal?.addEventListener('abort', onOuterAbort, { once: true });

  let sequence = 0;
  const emit = (payload: ChunkPayload) => {
    channel.push({ ...payload, runId, sequence: sequence++ } as Chunk);
  };

  const resultPromise = runLoop(setup, runId, emit, controller.signal).finally(() => {
    setup.signal?.removeEventListener('abort', onOuterAbort);
    channel.close();
  });

  return {
    runId,
    threadId: setup.threadId,
    chunks: channel,
    result: () => resultPromise,
    stop: () => controller.abort(new SwitchboardError('aborted', 'The run was stopped.')),
  };
}

async function runLoop(
  setup: RunSetup,
  runId: string,
  emit: (payload: ChunkPayload) => void,
  signal: AbortSignal,
): Promise<RunResult> {
  const { agent, history, threadId } = setup;
  const createdAt = Date.now();
  const output: Item[] = [...setup.messages];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };

  const record = (status: RunStatus, error?: SwitchboardError): RunRecord => {
    const row: RunRecord = {
      runId,
      threadId,
      status,
      items: output,
      usage,
      createdAt,
      updatedAt: Date.now(),
    };
    if (error !== undefined) row.error = { code: error.code, message: error.message };
    return row;
  };
  const finish = async (status: RunOutcome, error?: SwitchboardError): Promise<RunResult> => {
    closePendingCalls(output, status);
    try {
      await history.saveRun(record(status, error));
    } catch (saveError) {
      if (status !== 'failed') return finish('failed', asHistoryError(saveError));
    }
    if (status === 'completed') emit({ type: 'run.completed', usage, output: [...output] });
    else if (status === 'cancelled') emit({ type: 'run.cancelled' });
    else if (status === 'failed' && error !== undefined) emit({ type: 'run.failed', error });
    const result: RunResult = { runId, threadId, status, output: [...output], usage };
    if (error !== undefined) result.error = error;
    return result;
  };

  emit({ type: 'run.started', threadId });
  try {
    const previous = await history.loadItems(threadId, { signal });
    await history.saveRun(record('running'), { signal });
    const tools = await collectTools(agent, signal);
    const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
    const maxTurns = agent.maxTurns ?? DEFAULT_MAX_TURNS;

    for (let turn = 1; ; turn++) {
      if (turn > maxTurns) {
        return await finish(
          'failed',
          new SwitchboardError(
            'max_turns_exceeded',
            `The run reached maxTurns (${maxTurns}) model calls without a final answer.`,
            { details: { maxTurns } },
          ),
        );
      }
      const calls: FunctionCallItem[] = [];
      let text = '';
      let reasoning = '';
      try {
        const stream = agent.model.stream(
          {
            ...(agent.instructions === undefined ? {} : { instructions: agent.instructions }),
            items: [...previous, ...output],
            tools: tools.map(({ name, description, inputSchema }) => ({
              name,
              description,
              inputSchema,
            })),
          },
          { signal },
        );
        for await (const event of stream) {
          if (event.type === 'text.delta') {
            text += event.delta;
            emit({ type: 'text.delta', delta: event.delta });
          } else if (event.type === 'reasoning.delta') {
            reasoning += event.delta;
            emit({ type: 'reasoning.delta', delta: event.delta });
          } else if (event.type === 'tool.call') {
            calls.push({
              type: 'function_call',
              callId: event.callId,
              name: event.name,
              arguments: event.arguments,
            });
          } else {
            usage = addUsage(usage, event.usage);
          }
        }
      } finally {
        // What the user already saw stays in history, even when the stream broke off.
        if (reasoning !== '') output.push({ type: 'reasoning', text: reasoning });
        if (text !== '') output.push({ type: 'message', role: 'assistant', content: text });
      }
      if (text !== '') emit({ type: 'text.done', text });
      throwIfAborted(signal);
      if (calls.length === 0) return await finish('completed');

      output.push(...calls);
      await history.saveRun(record('running'), { signal });
      for (const call of calls) {
        const tool = toolsByName.get(call.name);
        emit({
          type: 'tool.call',
          callId: call.callId,
          toolName: call.name,
          ...(tool?.server === undefined ? {} : { server: tool.server }),
          arguments: parseForDisplay(call.arguments),
        });
      }
      const outputs = await Promise.all(
        calls.map(async (call) => {
          const result = await executeToolCall(call, toolsByName.get(call.name), {
            signal,
            threadId,
            runId,
            runContext: setup.runContext,
            onProgress(progressCall, progress) {
              emit({
                type: 'tool.progress',
                callId: progressCall.callId,
                toolName: progressCall.name,
                ...progress,
              });
            },
          });
          if (!signal.aborted) {
            emit({ type: 'tool.result', callId: call.callId, toolName: call.name, output: result });
          }
          return result;
        }),
      );
      throwIfAborted(signal);
      calls.forEach((call, index) => {
        output.push({
          type: 'function_call_output',
          callId: call.callId,
          output: outputs[index] as ToolOutput,
        });
      });
      await history.saveRun(record('running'), { signal });
    }
  } catch (error) {
    if (signal.aborted) return await finish('cancelled');
    return await finish('failed', asRunError(error));
  }
}

async function collectTools(agent: Readonly<AgentOptions>, signal: AbortSignal): Promise<Tool[]> {
  const lists = await Promise.all(
    (agent.mcpServers ?? []).map((server) => server.listTools({ signal })),
  );
  const tools = [...(agent.tools ?? []), ...lists.flat()];
  const seen = new Map<string, Tool>();
  for (const tool of tools) {
    const other = seen.get(tool.name);
    if (other !== undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `Two tools are named "${tool.name}" (${describeSource(other)} and ${describeSource(tool)}); ` +
          'give one MCP server a toolPrefix or rename the local tool.',
      );
    }
    seen.set(tool.name, tool);
  }
  return tools;
}

function describeSource(tool: Tool): string {
  return tool.server === undefined ? 'a local tool' : `MCP server "${tool.server}"`;
}

/**
 * Keeps the invariant "every function_call has exactly one function_call_output": calls left
 * without an output when a run stops or fails get a synthetic error output.
 */
function closePendingCalls(output: Item[], status: RunOutcome): void {
  const answered = new Set(
    output.flatMap((item) => (item.type === 'function_call_output' ? [item.callId] : [])),
  );
  for (const item of [...output]) {
    if (item.type !== 'function_call' || answered.has(item.callId)) continue;
    const message =
      status === 'cancelled'
        ? 'The run was stopped before this tool call finished.'
        : 'The run failed before this tool call finished.';
    output.push({
      type: 'function_call_output',
      callId: item.callId,
      output: { text: message, isError: true, error: { code: status, message } },
    });
  }
}

function parseForDisplay(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new SwitchboardError('aborted', 'The run was stopped.');
}

function asRunError(error: unknown): SwitchboardError {
  if (isSwitchboardError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchboardError('model_error', `The run failed: ${message}`, { cause: error });
}

function asHistoryError(error: unknown): SwitchboardError {
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchboardError('history_error', `Could not save the run: ${message}`, {
    cause: error,
  });
}
