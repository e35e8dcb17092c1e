import type { ChatAttachmentPart } from '@switchboard/core';
import { classNames } from './class-names.ts';
import { useAttachmentUrl, type AttachmentReadFunction } from './use-attachment-url.ts';

/** Props of {@link AttachmentPreview}. */
export interface AttachmentPreviewProps {
  /** The attached file: a message's `attachment` part, or any file as one (`bytes` set). */
  attachment: ChatAttachmentPart;
  /**
   * Reads stored bytes (`useAgent().readAttachment`); needed for a part that has an
   * `attachmentId` and no `bytes` (a stored message).
   */
  read?: AttachmentReadFunction;
  /** Extra class for the root element (`sb-attachment`). */
  className?: string;
}

/**
 * An attached file as a person sees it (docs/conversations.md, "Attachments"): an image as a
 * thumbnail (`<img>` whose alt text is the file's name; a link opens it full size), any other
 * file as its name, type and size. The bytes come through an object URL that is revoked when the
 * preview unmounts. A file whose bytes are gone says so.
 */
export function AttachmentPreview({ attachment, read, className }: AttachmentPreviewProps) {
  const state = useAttachmentUrl(attachment, read);
  const facts = `${attachment.mimeType}, ${formatSize(attachment.size)}`;
  const image = attachment.mimeType.startsWith('image/');
  return (
    <figure
      className={classNames('sb-attachment', className)}
      data-testid="attachment"
      data-state={state.status}
    >
      {state.status === 'ready' && image ? (
        <a href={state.url} target="_blank" rel="noopener noreferrer">
          <img className="sb-attachment__thumbnail" src={state.url} alt={attachment.name} />
        </a>
      ) : null}
      <figcaption className="sb-attachment__caption">
        {state.status === 'ready' && !image ? (
          <a href={state.url} download={attachment.name}>
            {attachment.name}
          </a>
        ) : (
          <span>{attachment.name}</span>
        )}{' '}
        <span className="sb-attachment__facts">({facts})</span>
        {state.status === 'missing' ? (
          <span className="sb-attachment__missing"> — its bytes are no longer stored</span>
        ) : null}
      </figcaption>
    </figure>
  );
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}
