import { describeModel, hostOf, type ModelSettings } from '../model-settings.ts';

/**
 * Title, the model in use (in plain words) and the Settings toggle. With `agentServer` (the
 * agent runs on a server) the model is the server's: the header names the server instead.
 */
export function AppHeader({
  settings,
  agentServer,
  settingsOpen,
  onToggleSettings,
}: {
  settings: ModelSettings;
  agentServer?: string | undefined;
  settingsOpen: boolean;
  onToggleSettings: () => void;
}) {
  return (
    <header className="app-header">
      <div className="app-header__title">
        <h1>Switchboard playground</h1>
        <p className="app-header__model">
          <span className="app-header__model-caption">Model:</span>{' '}
          <span
            className={`model-label model-label--${settings.provider}`}
            data-testid="model-label"
          >
            {agentServer === undefined
              ? describeModel(settings)
              : `The agent server's, at ${hostOf(agentServer)}`}
          </span>
        </p>
      </div>
      <button
        type="button"
        className="button button--secondary"
        aria-expanded={settingsOpen}
        aria-controls="settings-panel"
        data-testid="settings-toggle"
        onClick={onToggleSettings}
      >
        {settingsOpen ? 'Close settings' : 'Settings'}
      </button>
    </header>
  );
}
