import { parseArguments } from '../agent/call-task.ts';
import type {
  Item,
  MessageAttachmentPart,
  MessagePart,
  MessageResourcePart,
  ToolOutput,
} from '../vocabulary/items.ts';
import type { ToolTaskStatus } from '../tools/tool-types.ts';
import type { AppViewRef, ToolCallUi } from '../vocabulary/tool-ui.ts';

/** Live progress of a running tool call. */
export interface ChatToolProgress {
  progress: number;
  total?: number;
  message?: string;
  /** The MCP task the call follows and its last status (shown beside the progress). */
  task?: ToolTaskStatus;
}

/** A tool call as a UI shows it. */
export interface ChatToolCallPart {
  type: 'tool-call';
  callId: string;
  toolName: string;
  server?: string;
  /**
   * The MCP Apps view rendering this call (`McpAppView`): from the `tool.call` chunk live, from
   * the stored output after a reload.
   */
  ui?: ToolCallUi;
  arguments: unknown;
  /**
   * Set when an MCP Apps view asked for this call, not the model (`AgentChat.callToolFromApp`):
   * show it so, and mount no view for it (its view is the one that asked).
   */
  requestedBy?: AppViewRef;
  /** `waiting`: held for a human (approval, form or URL); see the chat's `interrupts`. */
  state: 'running' | 'waiting' | 'done' | 'error';
  output?: ToolOutput;
  progress?: ChatToolProgress;
  /**
   * What a sub-agent called as this tool (`Agent.asTool`) did, live: its run's text, reasoning
   * and tool calls folded from the call's `tool.nested` chunks, one assistant message per nested
   * run (id: its run id). Absent for other tools, and after a reload (the nested run keeps its
   * own thread: `RunRecord.parentCall`).
   */
  nested?: readonly ChatMessage[];
}

/** A piece of a {@link ChatMessage}. */
export type ChatPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | ChatToolCallPart
  | ChatResourcePart
  | ChatAttachmentPart;

/**
 * A file attached to a user message, as a UI shows it (docs/conversations.md, "Attachments"):
 * name, type and size, and where to get the bytes for a thumbnail — `bytes` on a message this
 * client is sending now, else `attachmentId` (read with `AgentChat.readAttachment`).
 */
export interface ChatAttachmentPart {
  type: 'attachment';
  /** The bytes' key in the thread's attachment store; absent while the message is being sent. */
  attachmentId?: string;
  name: string;
  mimeType: string;
  /** In bytes. */
  size: number;
  /** The file itself, on the message this client just sent (before the stored thread is read). */
  bytes?: Blob;
}

/** The display part of an attached file (no bytes: they stay in the attachment store). */
export function chatAttachmentPart(part: MessageAttachmentPart): ChatAttachmentPart {
  const { attachmentId, name, mimeType, size } = part;
  return { type: 'attachment', attachmentId, name, mimeType, size };
}

/** The display part of a resource or file attached to a user message. */
export function chatMessagePart(part: MessagePart): ChatResourcePart | ChatAttachmentPart {
  return part.type === 'attachment' ? chatAttachmentPart(part) : chatResourcePart(part);
}

/** A resource attached to a user message, as a UI shows it (no body: URI, title, type, size). */
export interface ChatResourcePart {
  type: 'resource';
  uri: string;
  title?: string;
  mimeType?: string;
  /** In bytes. */
  size?: number;
  server?: string;
}

/** The display part of an attached resource. */
export function chatResourcePart(part: MessageResourcePart): ChatResourcePart {
  const shown: ChatResourcePart = { type: 'resource', uri: part.uri };
  if (part.title !== undefined) shown.title = part.title;
  if (part.mimeType !== undefined) shown.mimeType = part.mimeType;
  if (part.size !== undefined) shown.size = part.size;
  if (part.server !== undefined) shown.server = part.server;
  return shown;
}

/** A message as a chat UI renders it: text, reasoning and tool calls in order. */
export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  parts: ChatPart[];
  /**
   * The run the message belongs to (`RunRecord.runId`): what `AgentChat.edit`,
   * `regenerate` and `switchBranch` take. Absent only while a message streams before its run
   * has an id.
   */
  runId?: string;
  /**
   * On the first message of each run (its user message): where the run sits among its
   * siblings, the other versions of this message and its answer (docs/conversations.md,
   * "Branches"). Show `‹ index + 1 / count ›` when `count > 1`.
   */
  branch?: ChatBranch;
}

/** A run's place among its siblings (same parent run), oldest first. */
export interface ChatBranch {
  /** From 0. */
  index: number;
  count: number;
  /** The sibling run ids, oldest first (`siblings[index]` is this run): `switchBranch` them. */
  siblings: readonly string[];
}

/**
 * Rebuilds UI messages from stored history: consecutive assistant output (text, reasoning, tool
 * calls and their outputs) forms one assistant message. (Live chunks are folded by
 * `applyChunk` in `chat-reducer.ts`; both settle a call with {@link settleCall}.)
 */
export function chatMessagesFromItems(items: readonly Item[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  /** Where each call's part is, to settle it when its output comes. */
  const calls = new Map<string, { parts: ChatPart[]; index: number }>();
  const assistant = (): ChatMessage => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const created: ChatMessage = { id: `m${messages.length}`, role: 'assistant', parts: [] };
    messages.push(created);
    return created;
  };
  for (const item of items) {
    // A view's model context is for the model (labelled there), not a message anybody wrote.
    if (item.type === 'message' && item.appContext !== undefined) continue;
    if (item.type === 'message' && item.role !== 'assistant') {
      messages.push({
        id: `m${messages.length}`,
        role: item.role,
        parts: [{ type: 'text', text: item.content }, ...(item.parts ?? []).map(chatMessagePart)],
      });
    } else if (item.type === 'message') {
      assistant().parts.push({ type: 'text', text: item.content });
    } else if (item.type === 'reasoning') {
      assistant().parts.push({ type: 'reasoning', text: item.text });
    } else if (item.type === 'function_call') {
      const { parts } = assistant();
      calls.set(item.callId, { parts, index: parts.length });
      parts.push({
        type: 'tool-call',
        callId: item.callId,
        toolName: item.name,
        arguments: parseArguments(item.arguments),
        ...(item.requestedBy === undefined ? {} : { requestedBy: item.requestedBy }),
        state: 'running',
      });
    } else {
      const at = calls.get(item.callId);
      const part = at?.parts[at.index];
      if (at !== undefined && part?.type === 'tool-call') {
        at.parts[at.index] = settleCall(part, item.output);
      }
    }
  }
  return messages;
}

/**
 * A tool-call part once its output arrived: `done`, or `error` for an error output; its live
 * progress ends with it.
 */
export function settleCall(part: ChatToolCallPart, output: ToolOutput): ChatToolCallPart {
  const settled: ChatToolCallPart = {
    ...part,
    ...(output.ui === undefined ? {} : { ui: output.ui }),
    output,
    state: output.isError === true ? 'error' : 'done',
  };
  delete settled.progress;
  return settled;
}
