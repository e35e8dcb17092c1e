import { OUTCOME_UNKNOWN } from '../agent/recover-run.ts';
import { SwitchboardError, type SwitchboardErrorCode } from '../errors/switchboard-error.ts';
import type { RunRecord } from '../history/history-store.ts';
import { chatMessagesFromItems } from './chat-message.ts';
import { markWaiting } from './chat-reducer.ts';
import type { ChatSnapshot } from './chat-snapshot.ts';

/**
 * What the snapshot shows of stored rows: the messages, the paused run's interrupts, and the
 * status (`running-elsewhere` while the last run is `running`). A run the chat `followed` that
 * ended `failed` shows its error, as the tab that ran it does; not a recovered one (code
 * `outcome_unknown`): its call cards say what is unknown and the thread continues, and it then
 * looks the same whether the lease expired before or after this chat loaded the thread.
 */
export function storedView(
  runs: readonly RunRecord[],
  followed: boolean,
): Pick<ChatSnapshot, 'messages' | 'interrupts' | 'status' | 'error'> {
  const last = runs.at(-1);
  const interrupts =
    last?.status === 'paused'
      ? (last.state?.pending ?? []).map((pending) => pending.interrupt)
      : [];
  const messages = markWaiting(chatMessagesFromItems(runs.flatMap((run) => run.items)), interrupts);
  if (last?.status === 'running') return { messages, interrupts, status: 'running-elsewhere' };
  if (
    followed &&
    last?.status === 'failed' &&
    last.error !== undefined &&
    last.error.code !== OUTCOME_UNKNOWN
  ) {
    const error = new SwitchboardError(last.error.code as SwitchboardErrorCode, last.error.message);
    return { messages, interrupts, status: 'error', error };
  }
  return { messages, interrupts, status: interrupts.length > 0 ? 'paused' : 'idle' };
}

/** What of `runs` the snapshot shows (a lease renewal alone changes nothing shown). */
export function rowsKey(runs: readonly RunRecord[]): string {
  const last = runs.at(-1);
  return [runs.length, last?.runId, last?.status, last?.items.length].join(':');
}
