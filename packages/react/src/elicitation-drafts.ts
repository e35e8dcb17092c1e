/**
 * Where {@link ElicitationForm} keeps what a person typed into a pending form, so that a reload
 * brings the form back filled in. Synchronous on purpose: the draft is read while the form's
 * first render computes its values, so a restored form never shows empty first.
 */
export interface ElicitationDraftStore {
  /** The saved values under `key`, or `undefined` when there are none (or they are unreadable). */
  load(key: string): Record<string, unknown> | undefined;
  /** Replaces the values under `key`. Never throws (a full or blocked storage drops the draft). */
  save(key: string, values: Record<string, unknown>): void;
  /** Drops the values under `key` (after the answer is sent). Never throws. */
  remove(key: string): void;
}

/** The prefix of every key {@link sessionStorageDraftStore} writes. */
export const ELICITATION_DRAFT_KEY_PREFIX = 'switchboard:elicitation-draft:';

/**
 * The default {@link ElicitationDraftStore}: the browser's `sessionStorage`, one JSON entry per
 * draft under `switchboard:elicitation-draft:<key>` (use `<threadId>:<callId>` as the key, see
 * {@link elicitationDraftKey}).
 *
 * Why sessionStorage rather than the thread's IndexedDB history: it is synchronous, so the draft
 * is there on the form's first render (no empty flash, no race with the first keystroke); it
 * survives a reload of the tab, which is what a draft is for; it is per tab, so two tabs on one
 * thread never overwrite each other's half-typed answers; and it ends with the tab, so a
 * half-typed answer does not outlive the session on a shared machine. The interrupt itself (the
 * question) stays in the thread's history store; only the unsent answer is kept here. Fields
 * with `format: "password"` or `writeOnly: true` are never passed to a store (see
 * {@link ElicitationForm}).
 *
 * Outside a browser (no `sessionStorage`, or storage blocked) every method is a no-op.
 */
export function sessionStorageDraftStore(): ElicitationDraftStore {
  const storage = (): Storage | undefined => {
    try {
      return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
    } catch {
      // Reading `sessionStorage` throws when the browser blocks storage for the page.
      return undefined;
    }
  };
  return {
    load(key) {
      try {
        const text = storage()?.getItem(ELICITATION_DRAFT_KEY_PREFIX + key);
        if (text === null || text === undefined) return undefined;
        const value = JSON.parse(text) as unknown;
        return typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : undefined;
      } catch {
        return undefined;
      }
    },
    save(key, values) {
      try {
        storage()?.setItem(ELICITATION_DRAFT_KEY_PREFIX + key, JSON.stringify(values));
      } catch {
        // Quota exceeded or storage blocked: the draft is a convenience, the form still works.
      }
    },
    remove(key) {
      try {
        storage()?.removeItem(ELICITATION_DRAFT_KEY_PREFIX + key);
      } catch {
        // As above.
      }
    },
  };
}

/** The draft key of one interrupt: the thread it belongs to and its call id, `<threadId>:<callId>`. */
export function elicitationDraftKey(threadId: string, callId: string): string {
  return `${threadId}:${callId}`;
}
