import type { ChatMessage } from '@switchboard/core';
import { InterruptView, useAgent } from '@switchboard/react';
import { useState, type FormEvent } from 'react';
import { agent } from './agent.ts';

/** One thread: the messages, the calls waiting for the user, and a message box. */
export function Chat() {
  const { messages, status, interrupts, error, send, resolve } = useAgent(agent, {
    threadId: 'react-chat',
  });
  const [draft, setDraft] = useState('');

  function submit(event: FormEvent) {
    event.preventDefault();
    if (draft.trim() === '') return;
    void send(draft);
    setDraft('');
  }

  return (
    <main>
      <h1>Switchboard chat</h1>
      <ol aria-label="Messages">
        {messages.map((message) => (
          <li key={message.id} data-role={message.role}>
            <strong>{message.role === 'user' ? 'You' : 'Agent'}:</strong> {messageText(message)}
          </li>
        ))}
      </ol>
      {interrupts.map((interrupt) => (
        <InterruptView
          key={interrupt.callId}
          interrupt={interrupt}
          onResolve={(action, content) => void resolve(interrupt.callId, action, content)}
        />
      ))}
      {error !== undefined && <p role="alert">{error.message}</p>}
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          value={draft}
          placeholder="Try: delete notes.txt"
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" disabled={status === 'streaming'}>
          Send
        </button>
      </form>
    </main>
  );
}

/** Text parts as they are, attached resources and files as `[name]`, tool calls as `[tool → result]`. */
function messageText(message: ChatMessage): string {
  return message.parts
    .map((part) => {
      if (part.type === 'resource') return `[${part.title ?? part.uri}] `;
      if (part.type === 'attachment') return `[${part.name}] `;
      if (part.type !== 'tool-call') return part.text;
      const result = part.output === undefined ? part.state : part.output.text;
      return `[${part.toolName} → ${result}] `;
    })
    .join('');
}
