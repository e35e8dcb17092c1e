// Type-checked by a strict React consumer (module nodenext, and again moduleResolution
// bundler; skipLibCheck false): every entry of both packages.
import { Agent, mcpServer, remoteAgent, type Interrupt } from '@switchboard/core';
import { anthropicModel } from '@switchboard/core/anthropic';
import { legacySseTransport } from '@switchboard/core/legacy-sse';
import { openaiChatModel } from '@switchboard/core/openai';
import { collectRun, mockModel, textTurn } from '@switchboard/core/testing';
import {
  ApprovalDialog,
  ElicitationForm,
  InterruptView,
  SwitchboardProvider,
  ToolProgressBar,
  UrlElicitation,
  useAgent,
} from '@switchboard/react';
import { buildViewCsp, McpAppView, sandboxProxyHtml } from '@switchboard/react/mcp-apps';
import type { ReactNode } from 'react';

export const agent = new Agent({
  name: 'typed',
  model: openaiChatModel({ model: 'gpt-4.1-mini', apiKey: 'k' }),
  mcpServers: [mcpServer({ url: 'http://127.0.0.1:1/mcp' })],
});
export const legacy = mcpServer({
  url: 'http://127.0.0.1:1/sse',
  transport: 'auto',
  legacySse: legacySseTransport,
});
export const remote = remoteAgent({
  url: '/agent/',
  headers: () => ({ authorization: 'Bearer t' }),
});
export function RemoteStatus(): ReactNode {
  return <p>{useAgent(remote).status}</p>;
}
export const other = anthropicModel({ model: 'claude-sonnet-4-5', apiKey: 'k' });
export const test = () =>
  collectRun(
    new Agent({ name: 't', model: mockModel([textTurn('hi')]) }).execute({ messages: 'x' }),
  );

export function Waiting({ threadId }: { threadId: string }): ReactNode {
  const { interrupts, resolve, messages, status } = useAgent(agent, { threadId });
  const first: Interrupt | undefined = interrupts[0];
  return (
    <SwitchboardProvider agent={agent}>
      <p>
        {status} {messages.length} {first?.toolName}
      </p>
      {interrupts.map((interrupt) => (
        <InterruptView
          key={interrupt.callId}
          interrupt={interrupt}
          onResolve={(action, content) => void resolve(interrupt.callId, action, content)}
        />
      ))}
    </SwitchboardProvider>
  );
}
export const components = [ApprovalDialog, ElicitationForm, ToolProgressBar, UrlElicitation];

const apps = mcpServer({ url: 'http://127.0.0.1:1/mcp', name: 'apps', apps: true });
export const proxyPage: string = sandboxProxyHtml();
export const viewPolicy: string = buildViewCsp({ connectDomains: ['https://api.example.com'] });
export function AppView({ callId }: { callId: string }): ReactNode {
  return (
    <McpAppView
      server={apps}
      callId={callId}
      resourceUri="ui://demo/chart"
      proxyUrl="https://sandbox.example.com/sandbox.html"
    />
  );
}
