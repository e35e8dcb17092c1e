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
  const [state, setState] = useState<AttachmentUrlState>({ status: 'loading' });
  const { bytes, attachmentId } = attachment;
  useEffect(() => {
    const controller = new AbortController();
    let url: string | undefined;
    const show = (blob: Blob | undefined) => {
      if (controller.signal.aborted) return;
      if (blob === undefined) {
        setState({ status: 'missing' });
        return;
      }
      url = URL.createObjectURL(blob);
      setState({ status: 'ready', url });
    };
    setState({ status: 'loading' });
    if (bytes !== undefined) {
      show(bytes);
    } else if (attachmentId === undefined || read === undefined) {
      show(undefined);
    } else {
      read(attachmentId, { signal: controller.signal }).then(show, (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: 'missing', error });
      });
    }
    return () => {
      controller.abort();
      if (url !== undefined) URL.revokeObjectURL(url);
    };
  }, [bytes, attachmentId, read]);
  return state;
}
