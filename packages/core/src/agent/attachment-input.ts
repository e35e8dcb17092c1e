import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { AttachmentStore } from '../history/attachment-store.ts';
import type { Model } from '../model/model.ts';
import { checkAttachmentBytes } from './attachment-signature.ts';
import type {
  MessageAttachmentPart,
  MessageItem,
  MessageResourcePart,
} from '../vocabulary/items.ts';

/**
 * A file to attach to a user message: a `File` (its `name` and `type` are used), another `Blob`
 * (named `attachment`, its `type` used), or bytes with a name and MIME type.
 */
export type AttachmentInput =
  Blob | { data: Blob | Uint8Array | ArrayBuffer; name: string; mimeType: string };

/**
 * A user message with files attached, for `Agent.execute({ messages })` (docs/conversations.md,
 * "Attachments"). The bytes are stored in the history store's `attachments` before the run
 * starts; the message item keeps one `MessageAttachmentPart` per file, in order.
 */
export interface UserMessageInput {
  role?: 'user';
  /** The message's text (may be empty when files say it all). */
  content: string;
  /** MCP resources attached as context, before the files (as `MessageItem.parts`). */
  resources?: readonly MessageResourcePart[];
  attachments: readonly AttachmentInput[];
}

/** The default largest attachment, in bytes: 20 MB (`AgentOptions.maxAttachmentBytes`). */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

/** A checked attachment waiting to be stored with its message. */
export interface PendingAttachment {
  /** The index of its message among the run's new messages. */
  messageIndex: number;
  bytes: Blob;
  name: string;
  mimeType: string;
}

/** Whether a message input is a {@link UserMessageInput} (it has no `type`, an item has). */
export function isUserMessageInput(input: unknown): input is UserMessageInput {
  return (
    typeof input === 'object' &&
    input !== null &&
    !('type' in input) &&
    Array.isArray((input as { attachments?: unknown }).attachments)
  );
}

/** A file type a run accepts as an attachment, and how large (see {@link acceptedAttachments}). */
export interface AcceptedAttachment {
  /** The MIME type, lowercase without parameters (`image/png`). */
  mimeType: string;
  /** The largest file of this type, in bytes. */
  maxBytes: number;
}

/**
 * The file types {@link checkAttachments} lets through for `context`, each with the largest size
 * it lets through: the types every model accepts (`Model.attachmentLimits`; a model without
 * limits accepts none), at the smallest of their limits and `maxBytes`. Empty when the store
 * keeps no attachments. In the order the first model lists them. What a UI puts on its file
 * picker (`<input accept>`) and tells the user, so a file that will be refused is not offered.
 */
export function acceptedAttachments(context: {
  models: readonly Model[];
  maxBytes: number;
  store: AttachmentStore | undefined;
}): AcceptedAttachment[] {
  const [first, ...others] = context.models;
  if (context.store === undefined || first === undefined) return [];
  return Object.entries(first.attachmentLimits ?? {}).flatMap(([mimeType, limit]) => {
    let maxBytes = Math.min(limit, context.maxBytes);
    for (const model of others) {
      const other = model.attachmentLimits?.[mimeType];
      if (other === undefined) return [];
      maxBytes = Math.min(maxBytes, other);
    }
    return [{ mimeType, maxBytes }];
  });
}

/**
 * Checks one message's attachments before anything is stored or sent: each must have a MIME
 * type, hold at least one byte, fit `maxBytes`, and be a type every model the run may use (`models`: the model, then
 * its fallbacks) accepts at that size (`Model.attachmentLimits`); the history store must keep
 * attachments.
 *
 * @throws SwitchboardError `invalid_input` naming the file and the reason (`details.reason`
 *   and `details.attachment`, see `SwitchboardErrorDetails`).
 */
export function checkAttachments(
  inputs: readonly AttachmentInput[],
  messageIndex: number,
  context: { models: readonly Model[]; maxBytes: number; store: AttachmentStore | undefined },
): PendingAttachment[] {
  return inputs.map((input) => {
    const attachment = normalise(input, messageIndex);
    const { name, mimeType } = attachment;
    const size = attachment.bytes.size;
    const facts = { name, mimeType, size };
    if (context.store === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `Cannot attach "${name}": this agent's history store keeps no attachments.`,
        { details: { reason: 'attachments_not_kept', attachment: facts } },
      );
    }
    if (mimeType === '') {
      throw new SwitchboardError(
        'invalid_input',
        `Cannot attach "${name}": its type is unknown (no MIME type).`,
        { details: { reason: 'attachment_type_unknown', attachment: facts } },
      );
    }
    if (size === 0) {
      throw new SwitchboardError(
        'invalid_input',
        `Cannot attach "${name}": the file is empty (0 bytes).`,
        { details: { reason: 'attachment_empty', attachment: facts } },
      );
    }
    if (size > context.maxBytes) {
      throw new SwitchboardError(
        'invalid_input',
        `Cannot attach "${name}": ${formatBytes(size)} is over the limit of ${formatBytes(context.maxBytes)}.`,
        {
          details: {
            reason: 'attachment_too_large',
            attachment: { ...facts, maxBytes: context.maxBytes },
          },
        },
      );
    }
    for (const model of context.models) {
      const limit = model.attachmentLimits?.[mimeType];
      const label = `${model.provider}/${model.modelId}`;
      if (limit === undefined) {
        throw new SwitchboardError(
          'invalid_input',
          `Cannot attach "${name}": the model ${label} does not accept ${mimeType} files.`,
          {
            details: {
              reason: 'attachment_type_not_accepted',
              attachment: { ...facts, model: label },
            },
          },
        );
      }
      if (size > limit) {
        throw new SwitchboardError(
          'invalid_input',
          `Cannot attach "${name}": the model ${label} accepts ${mimeType} files up to ${formatBytes(limit)}; this one is ${formatBytes(size)}.`,
          {
            details: {
              reason: 'attachment_too_large',
              attachment: { ...facts, model: label, maxBytes: limit },
            },
          },
        );
      }
    }
    return attachment;
  });
}

/**
 * Stores the run's checked attachments in `store` (keyed by the SHA-256 of their bytes, so the
 * same file twice in a thread is stored once) and returns `messages` with one
 * `MessageAttachmentPart` per file appended to its message's `parts`. Runs before the run's
 * row is claimed: a failure here fails the run with nothing of it in the thread. First every
 * file of an image or PDF type is checked to hold what its type says (`checkAttachmentBytes`),
 * so a mislabelled file is refused before anything is stored.
 *
 * @throws SwitchboardError `invalid_input` (`attachment_type_mismatch`); what the store throws.
 */
export async function storeAttachments(
  store: AttachmentStore,
  threadId: string,
  messages: readonly MessageItem[],
  pending: readonly PendingAttachment[],
  signal: AbortSignal,
): Promise<MessageItem[]> {
  await checkAttachmentBytes(pending);
  const result = messages.map((message) => ({ ...message }));
  for (const attachment of pending) {
    const attachmentId = await digest(attachment.bytes);
    await store.put(threadId, attachmentId, attachment.bytes, { signal });
    const part: MessageAttachmentPart = {
      type: 'attachment',
      attachmentId,
      name: attachment.name,
      mimeType: attachment.mimeType,
      size: attachment.bytes.size,
    };
    const message = result[attachment.messageIndex];
    if (message !== undefined) message.parts = [...(message.parts ?? []), part];
  }
  return result;
}

/**
 * An attachment input's bytes, name and MIME type (parameters dropped, lowercase), as
 * `execute` reads them; a UI shows a file being sent from it.
 */
export function attachmentFile(input: AttachmentInput): {
  bytes: Blob;
  name: string;
  mimeType: string;
} {
  const { bytes, name, mimeType } = normalise(input, 0);
  return { bytes, name, mimeType };
}

function normalise(input: AttachmentInput, messageIndex: number): PendingAttachment {
  if (input instanceof Blob) {
    const name = 'name' in input && typeof input.name === 'string' ? input.name : 'attachment';
    return { messageIndex, bytes: input, name, mimeType: essence(input.type) };
  }
  const bytes =
    input.data instanceof Blob
      ? input.data
      : new Blob([input.data instanceof ArrayBuffer ? input.data : copyOf(input.data)]);
  return { messageIndex, bytes, name: input.name, mimeType: essence(input.mimeType) };
}

/** A copy on its own `ArrayBuffer` (a view may cover part of a shared or larger buffer). */
function copyOf(view: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(view.byteLength);
  copy.set(view);
  return copy.buffer;
}

/** The MIME type without parameters, lowercase (`Text/Plain; charset=utf-8` → `text/plain`). */
function essence(mimeType: string): string {
  return (mimeType.split(';')[0] ?? '').trim().toLowerCase();
}

async function digest(bytes: Blob): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', await bytes.arrayBuffer());
  return [...new Uint8Array(hash)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}
