import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { OAuthFlowState, OAuthFlowStore } from './oauth-stores.ts';
import type { WebStorage } from '../internal/dom-globals.ts';

/** Options of {@link SessionStorageOAuthFlowStore}. */
export interface SessionStorageOAuthFlowStoreOptions {
  /** The storage. Default `globalThis.sessionStorage`, looked up on each call. */
  storage?: WebStorage;
}

/** Prefix of the flow records' keys; the rest is the MCP server URL. */
const KEY_PREFIX = 'switchboard.oauth.flow:';

/**
 * An {@link OAuthFlowStore} in `sessionStorage`: one JSON record per MCP server under
 * `switchboard.oauth.flow:<server URL>`. `sessionStorage` belongs to the tab and survives its
 * navigations, so the code verifier, state and discovery state outlive a full-page redirect to
 * the authorization server and back, while other tabs never see them. Updates are synchronous,
 * hence atomic within the tab. A record that does not parse reads as absent.
 *
 * @throws SwitchboardError `storage_error` when the storage is missing or refuses access (its
 *   error as `cause`; the message never contains a stored value).
 */
export class SessionStorageOAuthFlowStore implements OAuthFlowStore {
  readonly #storage: Storage | undefined;

  constructor(options: SessionStorageOAuthFlowStoreOptions = {}) {
    this.#storage = options.storage;
  }

  /** The flow record of the server `key`, or `undefined`. */
  read(key: string): OAuthFlowState | undefined {
    const text = this.#use('read', (storage) => storage.getItem(KEY_PREFIX + key));
    if (text === null) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null ? (value as OAuthFlowState) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Replaces the flow record of `key` with `change(current)`; `undefined` removes it. */
  update(
    key: string,
    change: (current: OAuthFlowState | undefined) => OAuthFlowState | undefined,
  ): OAuthFlowState | undefined {
    const next = change(this.read(key));
    this.#use('write', (storage) => {
      if (next === undefined) storage.removeItem(KEY_PREFIX + key);
      else storage.setItem(KEY_PREFIX + key, JSON.stringify(next));
    });
    return next;
  }

  /** `"[SessionStorageOAuthFlowStore]"`. */
  toString(): string {
    return '[SessionStorageOAuthFlowStore]';
  }

  #use<Result>(what: string, body: (storage: Storage) => Result): Result {
    let storage: Storage | undefined;
    try {
      storage = this.#storage ?? (globalThis.sessionStorage as Storage | undefined);
    } catch (error) {
      throw unavailable(what, error);
    }
    if (storage === undefined) throw unavailable(what, undefined);
    try {
      return body(storage);
    } catch (error) {
      throw unavailable(what, error);
    }
  }
}

function unavailable(what: string, cause: unknown): SwitchboardError {
  return new SwitchboardError(
    'storage_error',
    `Could not ${what} the OAuth flow state: sessionStorage is not available here.`,
    cause === undefined ? undefined : { cause },
  );
}
