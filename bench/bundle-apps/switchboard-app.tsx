/**
 * Benchmark 9: the minimal chat app on Switchboard, bundled for its size only (never run). A
 * React chat that streams answers from an OpenAI-compatible model and calls the tools of one
 * remote MCP server. Its twin is `ai-sdk-app.tsx`.
 */
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Agent, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { useAgent } from '@switchboard/react';

const agent = new Agent({
  name: 'assistant',
  model: openaiChatModel({ model: 'gpt-4.1-mini', baseURL: 'http://127.0.0.1:11434/v1' }),
  mcpServers: [mcpServer({ url: 'http://127.0.0.1:3001/mcp' })],
});

function App() {
  const { messages, send, status } = useAgent(agent);
  const [input, setInput] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(input);
        setInput('');
      }}
    >
      {messages.map((message) => (
        <p key={message.id}>
          {message.role}:{' '}
          {message.parts
            .map((part) =>
              part.type === 'tool-call'
                ? `[${part.toolName}]`
                : part.type === 'resource'
                  ? `[${part.uri}]`
                  : part.type === 'attachment'
                    ? `[${part.name}]`
                    : part.text,
            )
            .join('')}
        </p>
      ))}
      <input value={input} onChange={(event) => setInput(event.target.value)} />
      <button disabled={status === 'streaming'}>Send</button>
    </form>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
