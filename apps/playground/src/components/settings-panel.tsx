import { useId, useState, type FormEvent } from 'react';
import { openaiBaseUrl, validateModelSettings, type ModelSettings } from '../model-settings.ts';

/** Chooses the model: the scripted one, or an OpenAI-compatible endpoint with the user's key. */
export function SettingsPanel({
  settings,
  onSave,
  onCancel,
}: {
  settings: ModelSettings;
  onSave: (settings: ModelSettings) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(settings);
  const [problem, setProblem] = useState<string | undefined>();
  const id = useId();
  const change = (patch: Partial<ModelSettings>) =>
    setDraft((current) => ({ ...current, ...patch }));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // The OpenAI-compatible fields are kept when switching to the scripted model, for later.
    const next: ModelSettings = {
      ...draft,
      baseURL: draft.baseURL.trim(),
      model: draft.model.trim(),
    };
    const invalid = validateModelSettings(next);
    if (invalid !== undefined) {
      setProblem(invalid);
      return;
    }
    try {
      onSave(next);
    } catch (error) {
      setProblem(`Could not save the settings in this browser: ${String(error)}`);
    }
  };

  return (
    <section id="settings-panel" className="settings-panel" aria-labelledby={`${id}-title`}>
      <form className="settings-form" data-testid="settings-form" onSubmit={submit} noValidate>
        <h2 id={`${id}-title`}>Settings</h2>
        <fieldset className="settings-form__providers">
          <legend>Model provider</legend>
          <label className="choice">
            <input
              type="radio"
              name="provider"
              value="scripted"
              checked={draft.provider === 'scripted'}
              onChange={() => change({ provider: 'scripted' })}
            />
            Scripted model (offline, no real LLM)
          </label>
          <label className="choice">
            <input
              type="radio"
              name="provider"
              value="openai-compatible"
              checked={draft.provider === 'openai-compatible'}
              onChange={() => change({ provider: 'openai-compatible' })}
            />
            OpenAI-compatible
          </label>
        </fieldset>
        {draft.provider === 'openai-compatible' && (
          <div className="settings-form__fields">
            <label className="field">
              <span className="field__label">Base URL</span>
              <input
                type="url"
                value={draft.baseURL}
                placeholder={openaiBaseUrl}
                autoComplete="off"
                spellCheck={false}
                data-testid="settings-base-url"
                onChange={(event) => change({ baseURL: event.target.value })}
              />
              <span className="field__hint">
                Empty for OpenAI; e.g. http://127.0.0.1:11434/v1 for Ollama.
              </span>
            </label>
            <label className="field">
              <span className="field__label">API key</span>
              <input
                type="password"
                value={draft.apiKey}
                autoComplete="off"
                spellCheck={false}
                data-testid="settings-api-key"
                onChange={(event) => change({ apiKey: event.target.value })}
              />
            </label>
            <label className="field">
              <span className="field__label">Model name</span>
              <input
                type="text"
                value={draft.model}
                placeholder="gpt-4.1-mini"
                autoComplete="off"
                spellCheck={false}
                data-testid="settings-model"
                onChange={(event) => change({ model: event.target.value })}
              />
            </label>
            <p className="settings-form__note" data-testid="settings-key-note">
              Your key stays in this browser (localStorage) and is sent only to the base URL you
              enter.
            </p>
          </div>
        )}
        {problem !== undefined && (
          <p className="settings-form__problem" role="alert">
            {problem}
          </p>
        )}
        <div className="settings-form__actions">
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
