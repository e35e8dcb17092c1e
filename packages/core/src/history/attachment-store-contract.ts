import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { makeRun, userMessage, type HistoryStoreHarness } from './history-store-contract.ts';
import type { AttachmentStore } from './attachment-store.ts';
import type { HistoryStore } from './history-store.ts';

/** The bytes of a Blob, for comparing what was stored with what came back. */
export async function bytesOf(blob: Blob | undefined): Promise<number[] | undefined> {
  if (blob === undefined) return undefined;
  // jsdom's Blob (the core-browser-like project) has no `arrayBuffer()`; its FileReader reads it.
  const buffer =
    typeof blob.arrayBuffer === 'function'
      ? await blob.arrayBuffer()
      : await readWithFileReader(blob);
  return [...new Uint8Array(buffer)];
}

function readWithFileReader(blob: Blob): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsArrayBuffer(blob);
  });
}

/** A 1×1 transparent PNG: real image bytes for attachment tests. */
export const ONE_PIXEL_PNG: Uint8Array<ArrayBuffer> = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  ),
  (char) => char.charCodeAt(0),
);

/**
 * The contract every {@link HistoryStore} that keeps attachments (`HistoryStore.attachments`)
 * must pass: bytes come back as stored (also after a reopen), per thread, a second put of the
 * same id is harmless, and deleting a thread deletes its attachments and no other thread's.
 */
export function describeAttachmentStore(
  name: string,
  harness: () => HistoryStoreHarness | Promise<HistoryStoreHarness>,
): void {
  describe(`${name} attachments (AttachmentStore contract)`, () => {
    let current: HistoryStoreHarness;
    let store: HistoryStore;
    let attachments: AttachmentStore;

    beforeEach(async () => {
      current = await harness();
      store = current.store;
      if (store.attachments === undefined) throw new Error(`${name} keeps no attachments`);
      attachments = store.attachments;
    });

    afterEach(async () => {
      await current.dispose?.();
    });

    it('gives back the bytes it stored, and undefined for an id it never stored', async () => {
      await attachments.put('t1', 'a1', new Blob([ONE_PIXEL_PNG], { type: 'image/png' }));
      expect(await bytesOf(await attachments.get('t1', 'a1'))).toEqual([...ONE_PIXEL_PNG]);
      expect(await attachments.get('t1', 'missing')).toBeUndefined();
      expect(await attachments.get('other', 'a1')).toBeUndefined();
    });

    it('keeps attachments per thread, and a second put of the same id changes nothing', async () => {
      await attachments.put('t1', 'same', new Blob([Uint8Array.of(1, 2, 3)]));
      await attachments.put('t2', 'same', new Blob([Uint8Array.of(9)]));
      await attachments.put('t1', 'same', new Blob([Uint8Array.of(1, 2, 3)]));
      expect(await bytesOf(await attachments.get('t1', 'same'))).toEqual([1, 2, 3]);
      expect(await bytesOf(await attachments.get('t2', 'same'))).toEqual([9]);
    });

    it('deleting a thread deletes its attachments, not another thread’s', async () => {
      await store.saveRun(makeRun('t1', 'r1', 1, [userMessage('look')]));
      await attachments.put('t1', 'a', new Blob([Uint8Array.of(1)]));
      await attachments.put('t1', 'b', new Blob([Uint8Array.of(2)]));
      await attachments.put('t2', 'a', new Blob([Uint8Array.of(3)]));
      await store.deleteThread('t1');
      expect(await attachments.get('t1', 'a')).toBeUndefined();
      expect(await attachments.get('t1', 'b')).toBeUndefined();
      expect(await bytesOf(await attachments.get('t2', 'a'))).toEqual([3]);
    });

    it('keeps the bytes across a reopen of the same storage (a reload)', async () => {
      if (current.reopen === undefined) return;
      await attachments.put('t1', 'kept', new Blob([ONE_PIXEL_PNG]));
      const reopened = current.reopen().attachments;
      expect(await bytesOf(await reopened?.get('t1', 'kept'))).toEqual([...ONE_PIXEL_PNG]);
    });

    it('rejects with aborted when the signal has aborted, storing nothing', async () => {
      const controller = new AbortController();
      controller.abort(new Error('stop'));
      const error = await attachments
        .put('t1', 'x', new Blob([Uint8Array.of(1)]), { signal: controller.signal })
        .then(
          () => undefined,
          (failure: unknown) => failure,
        );
      expect(isSwitchboardError(error, 'aborted')).toBe(true);
      expect(await attachments.get('t1', 'x')).toBeUndefined();
    });
  });
}
