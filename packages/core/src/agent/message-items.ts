import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { MessageItem } from '../vocabulary/items.ts';
import type { MessageInput } from './agent-options.ts';
import { isUserMessageInput } from './attachment-input.ts';

/**
 * `ExecuteInput.messages` as the items a run stores: a string is a user message, a
 * `UserMessageInput` a user message with its `resources` as `parts` (its files are not items:
 * they are stored apart, and their parts added, by whoever keeps attachments), an item stays as
 * it is. The one normalisation every `AgentEndpoint` uses (`Agent`, `remoteAgent`,
 * `restateAgent`), so a message reads the same whichever runs it.
 *
 * @throws SwitchboardError `invalid_input` when there is no message.
 */
export function toMessageItems(messages: MessageInput | readonly MessageInput[]): MessageItem[] {
  const inputs: readonly MessageInput[] = Array.isArray(messages)
    ? (messages as readonly MessageInput[])
    : [messages as MessageInput];
  if (inputs.length === 0) {
    throw new SwitchboardError('invalid_input', 'execute() needs at least one message.');
  }
  return inputs.map((message): MessageItem => {
    if (typeof message === 'string') return { type: 'message', role: 'user', content: message };
    if (!isUserMessageInput(message)) return message;
    const resources = message.resources ?? [];
    return {
      type: 'message',
      role: 'user',
      content: message.content,
      ...(resources.length === 0 ? {} : { parts: [...resources] }),
    };
  });
}
