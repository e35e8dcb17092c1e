import type { Chunk, ToolProgressChunk } from '../agent/chunks.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import {
  settleCall,
  type ChatMessage,
  type ChatPart,
  type ChatToolCallPart,
  type ChatToolProgress,
} from './chat-message.ts';

/**
 * The live fold of a run into chat messages, as pure functions over immutable messages (the
 * AI SDK's `processUIMessageStream` split): `AgentChat` only stores what they return. Each
 * returns `messages` itself when nothing shown changed, and keeps every message it did not
 * change, so a UI re-renders only what moved.
 */

/**
 * Folds one chunk of a run into `messages`: text and reasoning deltas grow the assistant message
 * `assistantId` (created at its first output), a tool call adds a running call part, progress
 * and results update the call's part wherever it is (a resumed call lives in an earlier
 * message), `run.paused` marks the held calls `waiting`, `run.cancelled` closes the open ones.
 * Other chunks change nothing.
 */
export function applyChunk(
  messages: readonly ChatMessage[],
  chunk: Chunk,
  assistantId: string,
): readonly ChatMessage[] {
  switch (chunk.type) {
    case 'text.delta':
    case 'reasoning.delta': {
      const kind = chunk.type === 'text.delta' ? 'text' : 'reasoning';
      return updateAssistant(messages, assistantId, (parts) => {
        const last = parts.at(-1);
        if (last?.type === kind) {
          return [...parts.slice(0, -1), { type: kind, text: last.text + chunk.delta }];
        }
        return [...parts, { type: kind, text: chunk.delta }];
      });
    }
    case 'tool.call':
      return updateAssistant(messages, assistantId, (parts) => [
        ...parts,
        {
          type: 'tool-call',
          callId: chunk.callId,
          toolName: chunk.toolName,
          ...(chunk.server === undefined ? {} : { server: chunk.server }),
          ...(chunk.ui === undefined ? {} : { ui: chunk.ui }),
          arguments: chunk.arguments,
          ...(chunk.requestedBy === undefined ? {} : { requestedBy: chunk.requestedBy }),
          state: 'running',
        },
      ]);
    case 'tool.progress':
      return mapCalls(
        messages,
        (part) => part.callId === chunk.callId,
        (part) => ({ ...part, progress: progressOf(chunk) }),
      );
    case 'tool.result':
      return mapCalls(
        messages,
        (part) => part.callId === chunk.callId,
        (part) => settleCall(part, chunk.output),
      );
    case 'tool.nested':
      return mapCalls(
        messages,
        (part) => part.callId === chunk.callId,
        // The nested run's chunks fold the same way, under its own run id.
        (part) => ({
          ...part,
          nested: applyChunk(part.nested ?? [], chunk.chunk, chunk.chunk.runId),
        }),
      );
    case 'run.paused':
      return markWaiting(messages, chunk.interrupts);
    case 'run.cancelled':
      return closeOpenCalls(messages, 'stopped');
    default:
      return messages;
  }
}

/** Marks the tool-call parts of held calls (`interrupts`) as `waiting`. */
export function markWaiting(
  messages: readonly ChatMessage[],
  interrupts: readonly Interrupt[],
): readonly ChatMessage[] {
  const held = new Set(interrupts.map((interrupt) => interrupt.callId));
  return mapCalls(
    messages,
    (part) => held.has(part.callId) && part.state !== 'waiting',
    (part) => ({ ...part, state: 'waiting' }),
  );
}

/**
 * Ends the calls left open, as the run ended them: `unanswered` (a new message left the
 * waiting calls behind) closes the `waiting` ones; `stopped` (the run was cancelled) closes the
 * `running` ones too. Their output is the one the run stores for them, code included
 * (`unanswered`, or `cancelled` with the "stopped" sentence), so a UI labels a live card as it
 * labels the same card after a reload.
 */
export function closeOpenCalls(
  messages: readonly ChatMessage[],
  reason: 'unanswered' | 'stopped',
): readonly ChatMessage[] {
  const stopped = reason === 'stopped';
  const output = stopped
    ? toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish)
    : toolError('unanswered', TOOL_ERROR_TEXT.unanswered);
  return mapCalls(
    messages,
    (part) => part.state === 'waiting' || (stopped && part.state === 'running'),
    (part) => {
      const closed: ChatToolCallPart = { ...part, state: 'error', output };
      delete closed.progress;
      // A stopped sub-agent's run ends after this one: its open calls close with it.
      if (part.nested !== undefined) closed.nested = closeOpenCalls(part.nested, reason);
      return closed;
    },
  );
}

/**
 * Gives the tool-call parts that show no server the one `serverOf` names (stored history keeps
 * the provider-facing tool name, not the server: see `serverOfCall` in `stored-view.ts`).
 * Returns `messages` itself when no part changes.
 */
export function fillServers(
  messages: readonly ChatMessage[],
  serverOf: (part: ChatToolCallPart) => string | undefined,
): readonly ChatMessage[] {
  return mapCalls(
    messages,
    (part) => part.server === undefined && serverOf(part) !== undefined,
    (part) => ({ ...part, server: serverOf(part) ?? '' }),
  );
}

/** Replaces the parts of the assistant message `assistantId`, appending it if it is new. */
function updateAssistant(
  messages: readonly ChatMessage[],
  assistantId: string,
  change: (parts: ChatPart[]) => ChatPart[],
): readonly ChatMessage[] {
  const index = messages.findIndex((message) => message.id === assistantId);
  const current: ChatMessage = messages[index] ?? { id: assistantId, role: 'assistant', parts: [] };
  const next = { ...current, parts: change(current.parts) };
  if (index === -1) return [...messages, next];
  const updated = [...messages];
  updated[index] = next;
  return updated;
}

/**
 * Replaces the tool-call parts `select` picks with `change(part)`; returns `messages` itself
 * when it picks none.
 */
function mapCalls(
  messages: readonly ChatMessage[],
  select: (part: ChatToolCallPart) => boolean,
  change: (part: ChatToolCallPart) => ChatToolCallPart,
): readonly ChatMessage[] {
  const picked = (part: ChatPart): part is ChatToolCallPart =>
    part.type === 'tool-call' && select(part);
  if (!messages.some((message) => message.parts.some(picked))) return messages;
  return messages.map((message) =>
    message.parts.some(picked)
      ? { ...message, parts: message.parts.map((part) => (picked(part) ? change(part) : part)) }
      : message,
  );
}

function progressOf(chunk: ToolProgressChunk): ChatToolProgress {
  const progress: ChatToolProgress = { progress: chunk.progress };
  if (chunk.total !== undefined) progress.total = chunk.total;
  if (chunk.message !== undefined) progress.message = chunk.message;
  if (chunk.task !== undefined) progress.task = chunk.task;
  return progress;
}
