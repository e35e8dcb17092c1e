/**
 * Helpers for this package's tests (not exported from the package): a scripted model server
 * with an OpenAI-compatible model over it, and a small chat harness built from the public API.
 */
import type { Agent, Model } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedReply,
} from '@switchboard/fixtures';
import type { ReactNode } from 'react';
import { InterruptView } from './interrupt-view.tsx';
import { ToolProgressBar } from './tool-progress-bar.tsx';
import { useAgent } from './use-agent.ts';

export { setupUser } from './test-user-test-support.ts';

/** A scripted model server answering `replies` in order, and a model that talks to it. */
export async function startScriptedModel(
  replies: ScriptedReply[],
): Promise<{ server: ScriptedModelServer; model: Model }> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  const model = openaiChatModel({
    baseURL: `${server.url}/v1`,
    model: 'scripted',
    apiKey: 'x',
    maxRetries: 0,
  });
  return { server, model };
}

/**
 * A minimal chat UI over `useAgent`: status, text and tool calls (with progress), a send button
 * for `prompt`, and every interrupt through {@link InterruptView}.
 */
export function ChatHarness({
  agent,
  threadId,
  prompt = 'go',
}: {
  agent: Agent;
  threadId?: string;
  prompt?: string;
}): ReactNode {
  const chat = useAgent(agent, threadId === undefined ? {} : { threadId });
  return (
    <div>
      <p data-testid="status">{chat.status}</p>
      {chat.error !== undefined && <p data-testid="error">{chat.error.code}</p>}
      <button type="button" onClick={() => void chat.send(prompt)}>
        Send
      </button>
      {chat.messages.map((message) => (
        <div key={message.id} data-role={message.role}>
          {message.parts.map((part, index) =>
            part.type === 'tool-call' ? (
              <div key={part.callId} data-testid={`call-${part.toolName}`} data-state={part.state}>
                {part.progress !== undefined && <ToolProgressBar progress={part.progress} />}
              </div>
            ) : (
              <p key={index}>
                {part.type === 'resource'
                  ? part.uri
                  : part.type === 'attachment'
                    ? part.name
                    : part.text}
              </p>
            ),
          )}
        </div>
      ))}
      {chat.interrupts.map((interrupt) => (
        <InterruptView
          key={interrupt.callId}
          interrupt={interrupt}
          onResolve={(action, content) => chat.resolve(interrupt.callId, action, content)}
        />
      ))}
    </div>
  );
}
