import { useId, useState, type FormEvent } from 'react';
import { validateServerUrl, type AgentRunsSetting } from '../agent-runs-setting.ts';
import { closeOnEscape } from '../close-on-escape.ts';
import {
  defaultBaseUrls,
  endpointOf,
  hostOf,
  providerLabels,
  validateModelSettings,
  type ApprovalMode,
  type ModelProvider,
  type ModelSettings,
  type ProviderFields,
  type RemoteProvider,
} from '../model-settings.ts';
import { AgentRunsFieldset } from './agent-runs-fieldset.tsx';

const providerNotes: Record<ModelProvider, string> = {
  scripted:
    'The default. Works offline with no account: a local server answers from a fixed script ' +
    '(try the suggestions in the chat).',
  openai: "OpenAI's Responses API with your own key.",
  anthropic: "Anthropic's Messages API with your own key.",
  'openai-compatible':
    'Any Chat Completions endpoint: Ollama, vLLM, LM Studio, OpenRouter, OpenAI itself.',
};

const baseUrlHints: Record<RemoteProvider, string> = {
  openai: 'Empty for OpenAI; or a proxy that speaks the Responses API.',
  anthropic: 'Empty for Anthropic; or a proxy (without /v1).',
  'openai-compatible': 'Empty for OpenAI; e.g. http://127.0.0.1:11434/v1 for Ollama.',
};

const approvalLabels: Record<ApprovalMode, string> = {
  'declared-destructive': 'Tools the server declares destructive, and tools marked in Servers',
  'may-be-destructive':
    "Every tool that may be destructive (MCP's cautious default: tools without hints too)",
  'marked-only': 'Only tools marked "Needs approval" in Servers',
};

/**
 * Chooses the model — scripted (offline, the default), OpenAI (Responses), Anthropic or any
 * OpenAI-compatible endpoint, with model name, key and base URL — and which tool calls wait for
 * approval, and where the agent runs (this page, or a server). Keys stay in this browser.
 */
export function SettingsPanel({
  settings,
  agentRuns,
  onSave,
  onCancel,
}: {
  settings: ModelSettings;
  agentRuns: AgentRunsSetting;
  onSave: (settings: ModelSettings, agentRuns: AgentRunsSetting) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(settings);
  const [runsDraft, setRunsDraft] = useState({
    where: agentRuns.where,
    url: agentRuns.where === 'server' ? agentRuns.url : '',
  });
  const [problem, setProblem] = useState<string | undefined>();
  const id = useId();
  const provider = draft.provider;
  const changeFields = (patch: Partial<ProviderFields>) => {
    if (provider === 'scripted') return;
    setDraft((current) => ({
      ...current,
      providers: {
        ...current.providers,
        [provider]: { ...current.providers[provider], ...patch },
      },
    }));
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = (fields: ProviderFields): ProviderFields => ({
      ...fields,
      model: fields.model.trim(),
      baseURL: fields.baseURL.trim(),
    });
    const next: ModelSettings = {
      ...draft,
      providers: {
        openai: trimmed(draft.providers.openai),
        anthropic: trimmed(draft.providers.anthropic),
        'openai-compatible': trimmed(draft.providers['openai-compatible']),
      },
    };
    const serverUrl = runsDraft.url.trim();
    const invalid =
      validateModelSettings(next) ??
      (runsDraft.where === 'server' ? validateServerUrl(serverUrl) : undefined);
    if (invalid !== undefined) {
      setProblem(invalid);
      return;
    }
    try {
      onSave(
        next,
        runsDraft.where === 'server' ? { where: 'server', url: serverUrl } : { where: 'page' },
      );
    } catch (error) {
      setProblem(`Could not save the settings in this browser: ${String(error)}`);
    }
  };

  return (
    <section
      id="settings-panel"
      className="settings-panel"
      aria-labelledby={`${id}-title`}
      onKeyDown={closeOnEscape(onCancel)}
    >
      <form className="settings-form" data-testid="settings-form" onSubmit={submit} noValidate>
        <h2 id={`${id}-title`}>Settings</h2>
        <fieldset className="settings-form__providers">
          <legend>Model provider</legend>
          {(Object.keys(providerLabels) as ModelProvider[]).map((candidate) => (
            <label className="choice" key={candidate}>
              <input
                type="radio"
                name="provider"
                value={candidate}
                checked={provider === candidate}
                onChange={() => setDraft((current) => ({ ...current, provider: candidate }))}
              />
              {providerLabels[candidate]}
            </label>
          ))}
        </fieldset>
        <p className="settings-form__about" data-testid="settings-provider-note">
          {providerNotes[provider]}
        </p>
        {provider !== 'scripted' && (
          <div className="settings-form__fields">
            <label className="field">
              <span className="field__label">Model name</span>
              <input
                type="text"
                value={draft.providers[provider].model}
                autoComplete="off"
                spellCheck={false}
                data-testid="settings-model"
                onChange={(event) => changeFields({ model: event.target.value })}
              />
            </label>
            <label className="field">
              <span className="field__label">API key</span>
              <input
                type="password"
                value={draft.providers[provider].apiKey}
                autoComplete="off"
                spellCheck={false}
                data-testid="settings-api-key"
                onChange={(event) => changeFields({ apiKey: event.target.value })}
              />
            </label>
            <label className="field">
              <span className="field__label">Base URL</span>
              <input
                type="url"
                value={draft.providers[provider].baseURL}
                placeholder={defaultBaseUrls[provider]}
                autoComplete="off"
                spellCheck={false}
                data-testid="settings-base-url"
                onChange={(event) => changeFields({ baseURL: event.target.value })}
              />
              <span className="field__hint">{baseUrlHints[provider]}</span>
            </label>
            <p className="settings-form__note" data-testid="settings-key-note">
              Your key stays in this browser (localStorage) and is sent only to{' '}
              {hostOf(endpointOf(provider, draft.providers[provider]))}.
            </p>
          </div>
        )}
        <fieldset className="settings-form__approvals">
          <legend>Ask before running</legend>
          {(Object.keys(approvalLabels) as ApprovalMode[]).map((mode) => (
            <label className="choice" key={mode}>
              <input
                type="radio"
                name="approvals"
                value={mode}
                checked={draft.approvals === mode}
                onChange={() => setDraft((current) => ({ ...current, approvals: mode }))}
              />
              {approvalLabels[mode]}
            </label>
          ))}
        </fieldset>
        <AgentRunsFieldset value={runsDraft} onChange={setRunsDraft} />
        {problem !== undefined && (
          <p className="problem" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button" data-testid="settings-save">
            Save
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
