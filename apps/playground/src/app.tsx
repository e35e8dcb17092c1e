import {
  Agent,
  destructiveToolsNeedApproval,
  isDeclaredDestructive,
  remoteAgent,
  TOOL_SEARCH_NAME,
  type ApprovalPolicy,
  type HistoryStore,
  type McpServer,
  type MessageResourcePart,
} from '@switchboard/core';
import { useAgent } from '@switchboard/react';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import {
  loadAgentRunsSetting,
  saveAgentRunsSetting,
  type AgentRunsSetting,
} from './agent-runs-setting.ts';
import { AppHeader } from './components/app-header.tsx';
import { ChatPanel } from './components/chat-panel.tsx';
import { McpAppsContext, type McpAppsSetting } from './components/mcp-app-slot.tsx';
import { ResourceBrowser } from './components/resource-browser.tsx';
import { ServersPanel } from './components/servers/servers-panel.tsx';
import { SettingsPanel } from './components/settings-panel.tsx';
import { ThreadList } from './components/thread-list.tsx';
import { ToolRunner, type RunnerTarget } from './components/tool-runner.tsx';
import { createPlaygroundModel } from './create-playground-model.ts';
import { helperAgentTool } from './helper-agent.ts';
import {
  loadModelSettings,
  saveModelSettings,
  type ApprovalMode,
  type ModelSettings,
} from './model-settings.ts';
import { loadOpenThread, saveOpenThread } from './open-thread.ts';
import type { PlaygroundConfig } from './playground-config.ts';
import type { ServerEntry, ServerRegistry } from './server-registry.ts';

const instructions =
  'You are the assistant of the Switchboard playground. Use the MCP tools when they help, ' +
  'say which tool you used, and keep answers short. More tools than those offered exist: ' +
  `load them with ${TOOL_SEARCH_NAME} (keywords describing the task).`;

const approvalPolicies: Record<ApprovalMode, ApprovalPolicy | undefined> = {
  'declared-destructive': (_args, annotations) => isDeclaredDestructive(annotations),
  'may-be-destructive': destructiveToolsNeedApproval,
  'marked-only': undefined,
};

/** On narrow screens one section shows at a time. */
type MobileView = 'chat' | 'threads' | 'tools';
type SideTab = 'servers' | 'runner' | 'resources';

/**
 * The playground: threads, the chat (with approvals, forms and URL consent), the MCP servers
 * and the tool runner, and the model settings.
 */
export function App({
  config,
  registry,
  history,
}: {
  config: PlaygroundConfig;
  registry: ServerRegistry;
  history: HistoryStore;
}) {
  const [settings, setSettings] = useState<ModelSettings>(loadModelSettings);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [agentRuns, setAgentRuns] = useState<AgentRunsSetting>(loadAgentRunsSetting);
  const [threadId, setThreadId] = useState(loadOpenThread);
  const [mobileView, setMobileView] = useState<MobileView>('chat');
  const [sideTab, setSideTab] = useState<SideTab>('servers');
  const [runnerTarget, setRunnerTarget] = useState<RunnerTarget | undefined>();
  const [attachments, setAttachments] = useState<MessageResourcePart[]>([]);

  const { entries } = useSyncExternalStore(
    registry.subscribe,
    registry.getSnapshot,
    registry.getSnapshot,
  );
  const { servers: usable, exclusions } = useMemo(() => chooseAgentServers(entries), [entries]);
  // The agent is rebuilt when the usable servers change, but never under a streaming run.
  const [agentServers, setAgentServers] = useState<readonly McpServer[]>(usable);

  const agent = useMemo(() => {
    const approvalPolicy = approvalPolicies[settings.approvals];
    const helper = helperAgentTool({
      model: createPlaygroundModel(settings, config.modelBaseUrl),
      mcpServers: agentServers,
      approvalPolicy,
      leaseMs: config.leaseMs,
    });
    return new Agent({
      name: 'playground',
      instructions,
      model: createPlaygroundModel(settings, config.modelBaseUrl),
      mcpServers: [...agentServers],
      tools: [helper],
      history,
      deferredToolsInstructions: false,
      ...(approvalPolicy === undefined ? {} : { approvalPolicy }),
      ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
    });
  }, [settings, config.modelBaseUrl, config.leaseMs, agentServers, history]);
  // Settings → "Agent runs: on a server": the server's agent, threads and MCP servers.
  const serverUrl = agentRuns.where === 'server' ? agentRuns.url : undefined;
  const remote = useMemo(
    () => (serverUrl === undefined ? undefined : remoteAgent({ url: serverUrl })),
    [serverUrl],
  );
  const chat = useAgent(remote ?? agent, { threadId });

  // Adjusted during render (React's pattern for state derived from changing inputs): the next
  // render builds the agent with the servers usable now.
  if (chat.status !== 'streaming' && !sameServers(agentServers, usable)) setAgentServers(usable);

  useEffect(() => saveOpenThread(threadId), [threadId]);

  const saveSettings = (next: ModelSettings, nextRuns: AgentRunsSetting): void => {
    saveModelSettings(next);
    saveAgentRunsSetting(nextRuns);
    setSettings(next);
    setAgentRuns(nextRuns);
    setSettingsOpen(false);
  };
  const openThread = (id: string) => {
    setThreadId(id);
    setMobileView('chat');
  };
  const runTool = (serverId: string, toolName: string) => {
    setRunnerTarget({ serverId, toolName });
    setSideTab('runner');
  };
  const notices = entries.flatMap((entry) => {
    const reason = exclusions.get(entry.config.id);
    return reason === undefined ? [] : [`${entry.config.name}: ${reason}`];
  });

  const appsSetting: McpAppsSetting = {
    registry,
    proxyUrl: config.sandboxProxyUrl,
    // The agent's policy exactly: with none, only tools marked for approval wait.
    approvalPolicy: approvalPolicies[settings.approvals] ?? (() => false),
    onMessage: (text) => {
      void chat.send(text).catch(() => {
        // A refused send (a run in progress) shows in the chat's own status.
      });
    },
    thread: chat,
  };

  return (
    <McpAppsContext.Provider value={appsSetting}>
      <div className="app" data-mobile-view={mobileView}>
        <AppHeader
          settings={settings}
          agentServer={serverUrl}
          settingsOpen={settingsOpen}
          onToggleSettings={() => setSettingsOpen((open) => !open)}
        />
        {settingsOpen && (
          <SettingsPanel
            settings={settings}
            agentRuns={agentRuns}
            onSave={saveSettings}
            onCancel={() => setSettingsOpen(false)}
          />
        )}
        <nav className="mobile-nav" aria-label="Sections">
          {(['chat', 'threads', 'tools'] as const).map((view) => (
            <button
              key={view}
              type="button"
              className="mobile-nav__item"
              aria-pressed={mobileView === view}
              data-testid={`nav-${view}`}
              onClick={() => setMobileView(view)}
            >
              {view === 'chat' ? 'Chat' : view === 'threads' ? 'Threads' : 'Tools'}
            </button>
          ))}
        </nav>
        <main className="app__main">
          <ThreadList
            className="app__threads"
            history={remote?.history ?? history}
            openThreadId={threadId}
            busy={chat.status === 'streaming'}
            onOpen={openThread}
            onNew={() => openThread(crypto.randomUUID())}
            onDeleted={(deleted) => {
              if (deleted === threadId) setThreadId(crypto.randomUUID());
            }}
          />
          <ChatPanel
            className="app__chat"
            chat={chat}
            notices={notices}
            onNewChat={() => setThreadId(crypto.randomUUID())}
            servers={usable}
            attachments={attachments}
            onAttachmentsSent={() => setAttachments([])}
            // A server's agent checks files itself, with models this page does not know.
            acceptedAttachments={remote === undefined ? agent.acceptedAttachments() : undefined}
          />
          <section className="panel app__tools" aria-label="Servers and tools">
            <div className="tabs" role="tablist" aria-label="Servers and tools">
              <button
                type="button"
                role="tab"
                id="tab-servers"
                aria-selected={sideTab === 'servers'}
                aria-controls="tabpanel-servers"
                className="tabs__tab"
                data-testid="tab-servers"
                onClick={() => setSideTab('servers')}
              >
                Servers
              </button>
              <button
                type="button"
                role="tab"
                id="tab-runner"
                aria-selected={sideTab === 'runner'}
                aria-controls="tabpanel-runner"
                className="tabs__tab"
                data-testid="tab-runner"
                onClick={() => setSideTab('runner')}
              >
                Tool runner
              </button>
              <button
                type="button"
                role="tab"
                id="tab-resources"
                aria-selected={sideTab === 'resources'}
                aria-controls="tabpanel-resources"
                className="tabs__tab"
                data-testid="tab-resources"
                onClick={() => setSideTab('resources')}
              >
                Resources
              </button>
            </div>
            <div
              className="panel__body"
              role="tabpanel"
              id={`tabpanel-${sideTab}`}
              aria-labelledby={`tab-${sideTab}`}
            >
              {sideTab === 'servers' ? (
                <ServersPanel
                  registry={registry}
                  config={config}
                  exclusions={exclusions}
                  onRunTool={runTool}
                />
              ) : sideTab === 'resources' ? (
                <ResourceBrowser
                  servers={usable}
                  onAttach={(parts) => setAttachments((previous) => [...previous, ...parts])}
                />
              ) : (
                <ToolRunner
                  registry={registry}
                  target={runnerTarget}
                  onTargetChange={setRunnerTarget}
                />
              )}
            </div>
          </section>
        </main>
      </div>
    </McpAppsContext.Provider>
  );
}

/**
 * The servers whose tools the agent offers, in list order: not those that failed (a run would
 * fail listing them) and not those whose tool names clash with an earlier server's (the agent
 * refuses two tools of one name). Each left-out server gets a reason.
 */
function chooseAgentServers(entries: readonly ServerEntry[]): {
  servers: McpServer[];
  exclusions: Map<string, string>;
} {
  const servers: McpServer[] = [];
  const exclusions = new Map<string, string>();
  const owners = new Map<string, string>([[TOOL_SEARCH_NAME, 'the agent']]);
  for (const { config, server, state } of entries) {
    if (state.status === 'error' || state.status === 'closed') {
      exclusions.set(config.id, 'not connected, so its tools are left out of the chat.');
      continue;
    }
    const names = (state.tools ?? []).map((tool) => tool.name);
    const clashes = names.filter((name) => owners.has(name));
    if (clashes.length > 0) {
      const other = owners.get(clashes[0] ?? '') ?? 'another server';
      exclusions.set(
        config.id,
        `its tool names clash with ${other}'s (${clashes.slice(0, 3).join(', ')}${clashes.length > 3 ? ', …' : ''}), so its tools are left out of the chat. Remove one of them, or add it again with a tool prefix.`,
      );
      continue;
    }
    for (const name of names) owners.set(name, config.name);
    servers.push(server);
  }
  return { servers, exclusions };
}

function sameServers(left: readonly McpServer[], right: readonly McpServer[]): boolean {
  return left.length === right.length && left.every((server, index) => server === right[index]);
}
