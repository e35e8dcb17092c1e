import type { ApprovalPolicy, ToolOutput } from '@switchboard/core';
import { McpAppView, type McpAppThread } from '@switchboard/react/mcp-apps';
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ServerRegistry } from '../server-registry.ts';

/** What a view in the chat or the tool runner needs from the playground. */
export interface McpAppsSetting {
  registry: ServerRegistry;
  /** The sandbox proxy page on the second loopback port (see servers/sandbox-proxy-server.ts). */
  proxyUrl: string;
  /** The agent's approval policy: a view's tool calls wait for the user as the model's do. */
  approvalPolicy: ApprovalPolicy | undefined;
  /** `ui/message`, after the user confirmed it: sent as the user's chat message. */
  onMessage?: (text: string) => void;
  /** The open chat thread: a view in it calls tools and keeps model context there. */
  thread?: McpAppThread;
}

export const McpAppsContext = createContext<McpAppsSetting | undefined>(undefined);

/**
 * The MCP Apps view of one tool call, when the call's server is in the list: `McpAppView` with
 * the playground's proxy. A view in the chat (`inThread`) calls tools in the thread (approved
 * there, recorded in history); one in the tool runner is approved in place with the agent's
 * approval policy. Nothing (the card shows the text output) when the server is gone.
 */
export function McpAppSlot({
  serverName,
  toolName,
  inThread = false,
  callId,
  resourceUri,
  input,
  output,
  cancelled,
}: {
  serverName: string | undefined;
  toolName: string;
  inThread?: boolean;
  callId: string;
  resourceUri: string;
  input: unknown;
  output: ToolOutput | undefined;
  cancelled?: boolean;
}) {
  const setting = useContext(McpAppsContext);
  const registry = setting?.registry;
  const entries = useSyncExternalStore(
    registry?.subscribe ?? noSubscribe,
    () => registry?.getSnapshot().entries,
    () => registry?.getSnapshot().entries,
  );
  const server = entries?.find((entry) => entry.config.name === serverName)?.server;
  if (setting === undefined || server === undefined) return null;
  return (
    <div className="mcp-app" data-testid="mcp-app" data-resource-uri={resourceUri}>
      <McpAppView
        server={server}
        callId={callId}
        toolName={toolName}
        {...(inThread && setting.thread !== undefined ? { thread: setting.thread } : {})}
        resourceUri={resourceUri}
        input={input}
        {...(output === undefined ? {} : { output })}
        {...(cancelled === undefined ? {} : { cancelled })}
        proxyUrl={setting.proxyUrl}
        {...(setting.approvalPolicy === undefined
          ? {}
          : { approvalPolicy: setting.approvalPolicy })}
        {...(setting.onMessage === undefined ? {} : { onMessage: setting.onMessage })}
      />
    </div>
  );
}

function noSubscribe(): () => void {
  return () => undefined;
}
