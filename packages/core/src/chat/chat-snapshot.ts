import type { RunResult } from '../agent/run-result.ts';
import type { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import type { ChatMessage } from './chat-message.ts';
import type { ChatModelRetry } from './chat-model-retry.ts';
import type { ChatModelWaiting } from './chat-model-waiting.ts';

/**
 * What a chat is doing. `paused`: interrupts wait for the human. `running-elsewhere`: the
 * thread's run is running in another client (another tab, process or `Agent`, e.g. the tab that
 * won a race to approve the same call): the chat shows what that run has stored and follows it
 * until it ends; a new message would be refused (`run_in_progress`) until then.
 */
export type ChatStatus =
  'idle' | 'loading' | 'streaming' | 'paused' | 'running-elsewhere' | 'error';

/** An immutable view of a chat; a new object only when something changed. */
export interface ChatSnapshot {
  threadId: string;
  messages: readonly ChatMessage[];
  status: ChatStatus;
  /** Calls held for the human (approvals, forms, URLs), oldest first. */
  interrupts: readonly Interrupt[];
  /** The last run's error (or an invalid answer's), until the next `send` or `resolve`. */
  error?: SwitchboardError;
  /**
   * Names of the agent's MCP servers waiting for the user to sign in (status `needs-auth`):
   * show a "Connect" button that calls `AgentChat.connect`. Kept current while subscribed.
   */
  serversNeedingAuth: readonly string[];
  /**
   * While the streaming run's model call is tried again (a retry after a wait, or a fallback
   * model): what failed and when the next attempt starts. Absent otherwise.
   */
  modelRetry?: ChatModelRetry;
  /**
   * While the streaming run's model call has had no response headers for a few seconds (a
   * `model.waiting` chunk): the host it waits for, e.g. behind other tabs' connections. Absent
   * otherwise.
   */
  modelWaiting?: ChatModelWaiting;
}

/** `snapshot` without its `error` (a new send or answer clears it; the key goes, too). */
export function withoutError(snapshot: ChatSnapshot): ChatSnapshot {
  const rest = { ...snapshot };
  delete rest.error;
  return rest;
}

/** `snapshot` with `modelWaiting` set, or without the key when `modelWaiting` is undefined. */
export function withModelWaiting(
  snapshot: ChatSnapshot,
  modelWaiting: ChatModelWaiting | undefined,
): ChatSnapshot {
  if (snapshot.modelWaiting === modelWaiting) return snapshot;
  const rest = { ...snapshot };
  delete rest.modelWaiting;
  return modelWaiting === undefined ? rest : { ...rest, modelWaiting };
}

/** `snapshot` with `modelRetry` set, or without the key when `modelRetry` is undefined. */
export function withModelRetry(
  snapshot: ChatSnapshot,
  modelRetry: ChatModelRetry | undefined,
): ChatSnapshot {
  if (snapshot.modelRetry === modelRetry) return snapshot;
  const rest = { ...snapshot };
  delete rest.modelRetry;
  return modelRetry === undefined ? rest : { ...rest, modelRetry };
}

/**
 * What the snapshot shows of a run of this chat that ended: `paused` with its interrupts (and
 * an invalid answer's error), `error` with the run's error, otherwise `idle`.
 */
export function endedView(
  result: RunResult,
): Pick<ChatSnapshot, 'status' | 'interrupts'> & Pick<Partial<ChatSnapshot>, 'error'> {
  if (result.status === 'paused') {
    return {
      status: 'paused',
      interrupts: result.interrupts,
      ...(result.error === undefined ? {} : { error: result.error }),
    };
  }
  if (result.status === 'failed' && result.error !== undefined) {
    return { status: 'error', error: result.error, interrupts: [] };
  }
  return { status: 'idle', interrupts: [] };
}
