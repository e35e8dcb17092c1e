import type { AcceptedAttachment } from '@switchboard/core';
import { AttachmentPreview } from '@switchboard/react';
import { useId, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { acceptAttribute, describeAcceptedTypes } from '../accepted-file-types.ts';

/** The files waiting to go out with the next message, and the ways to add them. */
export interface ComposerFiles {
  files: readonly File[];
  add(files: Iterable<File>): void;
  remove(file: File): void;
  /** Empties the list; returns what it held (to put back if sending fails). */
  take(): File[];
  /** `onPaste` for the message box: pasted files (a screenshot, copied images) are attached. */
  onPaste(event: ClipboardEvent<HTMLElement>): void;
  /** `onDragOver` / `onDrop` for the composer: dropped files are attached. */
  onDragOver(event: DragEvent<HTMLElement>): void;
  onDrop(event: DragEvent<HTMLElement>): void;
}

/** State of the files attached in the composer (paste, drag and drop, the file picker). */
export function useComposerFiles(): ComposerFiles {
  const [files, setFiles] = useState<readonly File[]>([]);
  const add = (added: Iterable<File>) => {
    const list = [...added];
    if (list.length > 0) setFiles((previous) => [...previous, ...list]);
  };
  return {
    files,
    add,
    remove: (file) => setFiles((previous) => previous.filter((entry) => entry !== file)),
    take: () => {
      const taken = [...files];
      setFiles([]);
      return taken;
    },
    onPaste: (event) => {
      if (event.clipboardData.files.length === 0) return;
      // Files only: pasted text still goes into the message box.
      event.preventDefault();
      add(event.clipboardData.files);
    },
    onDragOver: (event) => {
      if (event.dataTransfer.types.includes('Files')) event.preventDefault();
    },
    onDrop: (event) => {
      if (event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      add(event.dataTransfer.files);
    },
  };
}

/**
 * The composer's "Attach files" button (a file picker, keyboard reachable) and the files it
 * holds, each as a thumbnail or its name with a Remove button. `accepted`: the types the agent
 * takes (`Agent.acceptedAttachments`): the picker offers only those and the composer names
 * them, so a file the model would refuse is not chosen by mistake (a pasted or dropped one is
 * still checked by the agent, which says why it refuses). Absent: unknown (a server's agent),
 * any file is offered.
 */
export function ComposerFileList({
  files,
  accepted,
}: {
  files: ComposerFiles;
  accepted?: readonly AcceptedAttachment[] | undefined;
}) {
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const typesId = useId();
  return (
    <div className="composer-files" data-testid="composer-files">
      <input
        ref={input}
        id={inputId}
        type="file"
        multiple
        {...(accepted === undefined ? {} : { accept: acceptAttribute(accepted) })}
        className="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="composer-file-input"
        onChange={(event) => {
          files.add(event.target.files ?? []);
          // Choosing the same file again must fire `change` again.
          event.target.value = '';
        }}
      />
      <button
        type="button"
        className="button button--secondary button--small"
        data-testid="attach-files"
        disabled={accepted?.length === 0}
        {...(accepted === undefined ? {} : { 'aria-describedby': typesId })}
        onClick={() => input.current?.click()}
      >
        Attach files
      </button>
      {accepted !== undefined && (
        <span id={typesId} className="composer-files__types" data-testid="composer-accepted-types">
          {describeAcceptedTypes(accepted)}
        </span>
      )}
      {files.files.length > 0 && (
        <ul className="composer-files__list" aria-label="Files to send">
          {files.files.map((file, index) => (
            <li key={`${file.name}-${index}`} className="composer-files__item">
              <AttachmentPreview
                attachment={{
                  type: 'attachment',
                  name: file.name,
                  mimeType: file.type,
                  size: file.size,
                  bytes: file,
                }}
              />
              <button
                type="button"
                className="button button--secondary button--small"
                aria-label={`Remove ${file.name}`}
                onClick={() => files.remove(file)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
