import { Agent, MemoryHistoryStore } from '@switchboard/core';
import { useAgent } from '@switchboard/react';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { AppHeader } from './components/app-header.tsx';
import { ChatPanel } from './components/chat-panel.tsx';
import { ServerPanel } from './components/server-panel.tsx';
import { SettingsPanel } from './components/settings-panel.tsx';
import { createPlaygroundModel } from './create-playground-model.ts';
import { McpConnection } from './mcp-connection.ts';
import { loadModelSettings, saveModelSettings, type ModelSettings } from './model-settings.ts';
import type { PlaygroundConfig } from './playground-config.ts';
import { useMcpServerSnapshot } from './use-mcp-server-snapshot.ts';

const instructions =
  'You are the assistant of the Switchboard playground. Use the MCP tools when they help, ' +
  'say which tool you used, and keep answers short.';

/** The playground: header, settings, the MCP server panel and the chat. */
export function App({ config }: { config: PlaygroundConfig }) {
  const [settings, setSettings] = useState<ModelSettings>(loadModelSettings);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [connection] = useState(() => new McpConnection(config.mcpUrl));
  // One history for every agent the page builds, so changing settings keeps the conversation.
  const [history] = useState(() => new MemoryHistoryStore());
  const [threadId, setThreadId] = useState(() => crypto.randomUUID());

  const { url, server, listError } = useSyncExternalStore(
    connection.subscribe,
    connection.getSnapshot,
    connection.getSnapshot,
  );
  const serverSnapshot = useMcpServerSnapshot(server);

  useEffect(() => {
    connection.connect();
    return () => connection.disconnect();
  }, [connection]);

  // A server that failed is left out, so the chat keeps working (without its tools).
  const toolServer =
    server !== undefined && serverSnapshot.status !== 'error' && serverSnapshot.status !== 'closed'
      ? server
      : undefined;
  const agent = useMemo(
    () =>
      new Agent({
        name: 'playground',
        instructions,
        model: createPlaygroundModel(settings, config.modelBaseUrl),
        mcpServers: toolServer === undefined ? [] : [toolServer],
        history,
      }),
    [settings, config.modelBaseUrl, toolServer, history],
  );
  const chat = useAgent(agent, { threadId });

  const saveSettings = (next: ModelSettings): void => {
    saveModelSettings(next);
    setSettings(next);
    setSettingsOpen(false);
  };

  return (
    <div className="app">
      <AppHeader
        settings={settings}
        settingsOpen={settingsOpen}
        onToggleSettings={() => setSettingsOpen((open) => !open)}
      />
      {settingsOpen && (
        <SettingsPanel
          settings={settings}
          onSave={saveSettings}
          onCancel={() => setSettingsOpen(false)}
        />
      )}
      <main className="app__main">
        <ServerPanel
          url={url}
          snapshot={serverSnapshot}
          listError={listError}
          onConnect={(nextUrl) => connection.connect(nextUrl)}
        />
        <ChatPanel
          chat={chat}
          toolsConnected={toolServer !== undefined}
          onNewChat={() => setThreadId(crypto.randomUUID())}
        />
      </main>
    </div>
  );
}
