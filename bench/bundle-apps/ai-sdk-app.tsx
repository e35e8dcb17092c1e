/**
 * Benchmark 9: the same minimal chat app on the Vercel AI SDK (`ai`, `@ai-sdk/react`,
 * `@ai-sdk/openai`) with `use-mcp` for the MCP server, bundled for its size only (never run).
 * Everything runs in the browser like the Switchboard twin: `useChat` over a
 * `DirectChatTransport` driving a `ToolLoopAgent` whose tools call the MCP server via `use-mcp`.
 */
import { useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import { createOpenAI } from '@ai-sdk/openai';
import { DirectChatTransport, ToolLoopAgent, dynamicTool, jsonSchema, type ToolSet } from 'ai';
import { useMcp } from 'use-mcp/react';

const openai = createOpenAI({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'local' });

function App() {
  const mcp = useMcp({ url: 'http://127.0.0.1:3001/mcp' });
  const transport = useMemo(() => {
    const tools: ToolSet = {};
    for (const tool of mcp.tools) {
      tools[tool.name] = dynamicTool({
        description: tool.description ?? '',
        inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
        execute: (args) => mcp.callTool(tool.name, args as Record<string, unknown>),
      });
    }
    return new DirectChatTransport({
      agent: new ToolLoopAgent({ model: openai.chat('gpt-4.1-mini'), tools }),
    });
  }, [mcp]);
  const { messages, sendMessage, status } = useChat({ transport });
  const [input, setInput] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void sendMessage({ text: input });
        setInput('');
      }}
    >
      {messages.map((message) => (
        <p key={message.id}>
          {message.role}:{' '}
          {message.parts
            .map((part) =>
              part.type === 'text'
                ? part.text
                : part.type === 'dynamic-tool'
                  ? `[${part.toolName}]`
                  : '',
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
