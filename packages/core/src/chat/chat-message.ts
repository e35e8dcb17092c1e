import type { Item, ToolOutput } from '../vocabulary/items.ts';

/** Live progress of a running tool call. */
export interface ChatToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A tool call as a UI shows it. */
export interface ChatToolCallPart {
  type: 'tool-call';
  callId: string;
  toolName: string;
  server?: string;
  arguments: unknown;
  /** `waiting`: held for a human (approval, form or URL); see the chat's `interrupts`. */
  state: 'running' | 'waiting' | 'done' | 'error';
  output?: ToolOutput;
  progress?: ChatToolProgress;
}

/** A piece of a {@link ChatMessage}. */
export type ChatPart =
  { type: 'text'; text: string } | { type: 'reasoning'; text: string } | ChatToolCallPart;

/** A message as a chat UI renders it: text, reasoning and tool calls in order. */
export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  parts: ChatPart[];
}

/**
 * Rebuilds UI messages from stored history: consecutive assistant output (text, reasoning, tool
 * calls and their outputs) forms one assistant message.
 */
export function chatMessagesFromItems(items: readonly Item[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const calls = new Map<string, ChatToolCallPart>();
  const assistant = (): ChatMessage => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const created: ChatMessage = { id: `m${messages.length}`, role: 'assistant', parts: [] };
    messages.push(created);
    return created;
  };
  for (const item of items) {
    if (item.type === 'message' && item.role !== 'assistant') {
      messages.push({
        id: `m${messages.length}`,
        role: item.role,
        parts: [{ type: 'text', text: item.content }],
      });
    } else if (item.type === 'message') {
      assistant().parts.push({ type: 'text', text: item.content });
    } else if (item.type === 'reasoning') {
      assistant().parts.push({ type: 'reasoning', text: item.text });
    } else if (item.type === 'function_call') {
      const part: ChatToolCallPart = {
        type: 'tool-call',
        callId: item.callId,
        toolName: item.name,
        arguments: parseArguments(item.arguments),
        state: 'running',
      };
      calls.set(item.callId, part);
      assistant().parts.push(part);
    } else {
      const part = calls.get(item.callId);
      if (part !== undefined) {
        part.output = item.output;
        part.state = item.output.isError === true ? 'error' : 'done';
      }
    }
  }
  return messages;
}

function parseArguments(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}
