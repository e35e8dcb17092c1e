import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';

/**
 * `error` with `history_error` turned into `storage_error`, everything else as it is. The shared
 * IndexedDB connection (`internal/indexeddb.ts`) reports `history_error`, the code of the
 * history stores; an OAuth store's failure is not a history failure.
 */
export function asStorageError(error: unknown): unknown {
  if (!isSwitchboardError(error, 'history_error')) return error;
  return new SwitchboardError('storage_error', error.message, { cause: error.cause });
}
