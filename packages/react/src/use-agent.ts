import {
  AgentChat,
  type Agent,
  type ChatMessage,
  type ChatStatus,
  type RunResult,
  type SwitchboardError,
} from '@switchboard/core';
import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react';

/** Options of {@link useAgent}. */
export interface UseAgentOptions {
  /** The thread to show and continue; a new thread when absent. Changing it switches threads. */
  threadId?: string;
}

/** What {@link useAgent} returns. */
export interface UseAgentResult {
  threadId: string;
  /** Messages of the thread, including the one streaming now. */
  messages: readonly ChatMessage[];
  status: ChatStatus;
  /** The last run's error, cleared by the next `send`. */
  error: SwitchboardError | undefined;
  /** Sends a user message; resolves with the run's result (never rejects for run failures). */
  send(text: string): Promise<RunResult>;
  /** Stops the streaming run, if any. */
  stop(): void;
}

/**
 * Binds a thread of `agent` to a component: loads its history on mount, streams answers into
 * `messages`. Thin `useSyncExternalStore` glue over the core {@link AgentChat} store.
 *
 * Pass a stable `agent` (created once, outside render or in `useMemo`): a new agent instance
 * starts a new chat store.
 */
export function useAgent(agent: Agent, options: UseAgentOptions = {}): UseAgentResult {
  const { threadId } = options;
  const chat = useMemo(
    () => new AgentChat(agent, threadId === undefined ? {} : { threadId }),
    [agent, threadId],
  );
  const snapshot = useSyncExternalStore(
    useCallback((listener) => chat.subscribe(listener), [chat]),
    () => chat.getSnapshot(),
    () => chat.getSnapshot(),
  );
  useEffect(() => {
    void chat.load();
    return () => chat.stop();
  }, [chat]);
  const send = useCallback((text: string) => chat.send(text), [chat]);
  const stop = useCallback(() => chat.stop(), [chat]);
  return {
    threadId: snapshot.threadId,
    messages: snapshot.messages,
    status: snapshot.status,
    error: snapshot.error,
    send,
    stop,
  };
}
