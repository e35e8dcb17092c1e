import type { ChatMessage } from '@switchboard/core';
import { MessageActions, type BranchActions } from './message-actions.tsx';
import { AttachmentPreview, type AttachmentReadFunction } from '@switchboard/react';
import { ToolCallCard } from './tool-call-card.tsx';

const roleLabels = { user: 'You', assistant: 'Agent', system: 'System' } as const;

/**
 * One message: its text, reasoning and tool calls in order, all rendered as text; attached
 * files as thumbnails (read with `readAttachment`); with `actions`, its edit / regenerate /
 * version controls below.
 */
export function ChatMessageView({
  message,
  actions,
  readAttachment,
}: {
  message: ChatMessage;
  actions?: BranchActions;
  readAttachment?: AttachmentReadFunction;
}) {
  return (
    <li
      className={`message message--${message.role}`}
      data-testid="message"
      data-role={message.role}
    >
      <span className="message__role">{roleLabels[message.role]}</span>
      {message.parts.map((part, index) => {
        switch (part.type) {
          case 'text':
            return (
              <p key={index} className="message__text" data-testid="message-text">
                {part.text}
              </p>
            );
          case 'reasoning':
            return (
              <details key={index} className="message__reasoning" data-testid="message-reasoning">
                <summary>Reasoning</summary>
                <p>{part.text}</p>
              </details>
            );
          case 'tool-call':
            return <ToolCallCard key={part.callId} part={part} />;
          case 'resource':
            return (
              <p key={index} className="message__resource" data-testid="message-resource">
                📎 {part.title ?? part.uri}
                {part.size === undefined ? '' : ` (${part.size} bytes)`}
              </p>
            );
          case 'attachment':
            return (
              <AttachmentPreview
                key={index}
                attachment={part}
                {...(readAttachment === undefined ? {} : { read: readAttachment })}
              />
            );
          default:
            return null;
        }
      })}
      {actions !== undefined && <MessageActions message={message} actions={actions} />}
    </li>
  );
}
