import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { IndexedDbOAuthCredentialStore } from './indexeddb-oauth-credential-store.ts';
import { SessionStorageOAuthFlowStore } from './session-storage-oauth-flow-store.ts';

// Under Node there is neither IndexedDB nor sessionStorage: both stores fail, and say so with
// `storage_error`, never with the history stores' `history_error`.
describe('OAuth store failures', () => {
  it('are storage_error in the IndexedDB credential store', async () => {
    const failure: unknown = await new IndexedDbOAuthCredentialStore().read('x').catch((e) => e);
    expect(isSwitchboardError(failure, 'storage_error')).toBe(true);
  });

  it('are storage_error in the sessionStorage flow store', () => {
    let failure: unknown;
    try {
      new SessionStorageOAuthFlowStore().read('x');
    } catch (error) {
      failure = error;
    }
    expect(isSwitchboardError(failure, 'storage_error')).toBe(true);
  });
});
