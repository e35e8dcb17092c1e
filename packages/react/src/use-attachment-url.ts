import type { ChatAttachmentPart } from '@switchboard/core';
import { useEffect, useState } from 'react';

/** Reads an attachment's stored bytes (`useAgent().readAttachment`). */
export type AttachmentReadFunction = (
  attachmentId: string,
  options: { signal: AbortSignal },
) => Promise<Blob | undefined>;

/** What {@link useAttachmentUrl} gives. */
export type AttachmentUrlState =
  | { status: 'loading' }
  | { status: 'ready'; url: string }
  /** The bytes are not stored (any more), or reading them failed (`error`). */
  | { status: 'missing'; error?: unknown };

/**
 * An object URL (`URL.createObjectURL`) for an attached file's bytes: the part's own `bytes`
 * while it is being sent, else the stored ones read with `read`. The URL is revoked when the
 * component unmounts or the part changes, and a read still running then is aborted, so no
 * bytes stay pinned in memory.
 */
export function useAttachmentUrl(
  attachment: ChatAttachmentPart,
  read: AttachmentReadFunction | undefined,
): AttachmentUrlState {
  const { bytes, attachmentId } = attachment;
  /** What this part's bytes are: the File being sent, else the stored id. */
  const source: unknown = bytes ?? attachmentId;
  const [shown, setShown] = useState<{ source: unknown; state: AttachmentUrlState }>();
  useEffect(() => {
    const controller = new AbortController();
    let url: string | undefined;
    const bytesToShow: Promise<Blob | undefined> =
      bytes !== undefined
        ? Promise.resolve(bytes)
        : attachmentId === undefined || read === undefined
          ? Promise.resolve(undefined)
          : read(attachmentId, { signal: controller.signal });
    bytesToShow.then(
      (blob) => {
        if (controller.signal.aborted) return;
        if (blob === undefined) {
          setShown({ source, state: { status: 'missing' } });
          return;
        }
        url = URL.createObjectURL(blob);
        setShown({ source, state: { status: 'ready', url } });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setShown({ source, state: { status: 'missing', error } });
      },
    );
    return () => {
      controller.abort();
      if (url !== undefined) URL.revokeObjectURL(url);
    };
  }, [source, bytes, attachmentId, read]);
  return shown !== undefined && shown.source === source ? shown.state : { status: 'loading' };
}
