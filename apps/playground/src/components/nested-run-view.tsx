import type { ChatMessage, ChatToolCallPart } from '@switchboard/core';
import type { ReactNode } from 'react';

/**
 * What a sub-agent did inside its tool call's card (`ChatToolCallPart.nested`, from the run's
 * `tool.nested` chunks): its text and its own tool calls, each drawn by `renderCall` (the
 * card itself, so a sub-agent's sub-agent nests again). Rendered as text.
 */
export function NestedRunView({
  agentName,
  messages,
  renderCall,
}: {
  agentName: string;
  messages: readonly ChatMessage[];
  renderCall: (part: ChatToolCallPart) => ReactNode;
}) {
  return (
    <details className="tool-call__nested" data-testid="nested-run" open>
      <summary>What {agentName} did</summary>
      {messages.map((message) => (
        <div key={message.id} className="tool-call__nested-run">
          {message.parts.map((part, index) => {
            if (part.type === 'text') {
              return (
                <p key={index} className="message__text" data-testid="nested-text">
                  {part.text}
                </p>
              );
            }
            if (part.type === 'tool-call') return <div key={part.callId}>{renderCall(part)}</div>;
            return null;
          })}
        </div>
      ))}
    </details>
  );
}
