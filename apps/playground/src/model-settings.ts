/** Which model the playground's agent talks to. */
export type ModelProvider = 'scripted' | 'openai-compatible';

/** The Settings panel's choices, kept in this browser's localStorage. */
export interface ModelSettings {
  provider: ModelProvider;
  /** OpenAI-compatible base URL; empty means OpenAI's own (`https://api.openai.com/v1`). */
  baseURL: string;
  /** Sent only to `baseURL`; may be empty for local servers. */
  apiKey: string;
  /** Model name, e.g. `gpt-4.1-mini`. */
  model: string;
}

/** The localStorage key the settings are kept under. */
export const modelSettingsStorageKey = 'switchboard.playground.model-settings';

/** The scripted model: works offline, without any key. */
export const defaultModelSettings: ModelSettings = {
  provider: 'scripted',
  baseURL: '',
  apiKey: '',
  model: '',
};

/** OpenAI's base URL, used when the OpenAI-compatible provider has no base URL. */
export const openaiBaseUrl = 'https://api.openai.com/v1';

/**
 * Reads the settings from localStorage. Anything missing, malformed or unreadable (storage
 * disabled) gives the defaults for that field.
 */
export function loadModelSettings(): ModelSettings {
  let raw: string | null;
  try {
    raw = globalThis.localStorage?.getItem(modelSettingsStorageKey) ?? null;
  } catch {
    return defaultModelSettings;
  }
  if (raw === null) return defaultModelSettings;
  let stored: unknown;
  try {
    stored = JSON.parse(raw);
  } catch {
    return defaultModelSettings;
  }
  if (typeof stored !== 'object' || stored === null) return defaultModelSettings;
  const record = stored as Record<string, unknown>;
  const text = (key: keyof ModelSettings): string =>
    typeof record[key] === 'string' ? record[key] : '';
  return {
    provider: record['provider'] === 'openai-compatible' ? 'openai-compatible' : 'scripted',
    baseURL: text('baseURL'),
    apiKey: text('apiKey'),
    model: text('model'),
  };
}

/**
 * Writes the settings to localStorage.
 *
 * @throws Error when the browser refuses to store them (storage disabled or full).
 */
export function saveModelSettings(settings: ModelSettings): void {
  globalThis.localStorage.setItem(modelSettingsStorageKey, JSON.stringify(settings));
}

/** A plain label for the header, e.g. `OpenAI-compatible: gpt-4.1-mini at api.openai.com`. */
export function describeModel(settings: ModelSettings): string {
  if (settings.provider === 'scripted') return 'Scripted model (offline, no real LLM)';
  return `OpenAI-compatible: ${settings.model} at ${hostOf(settings.baseURL || openaiBaseUrl)}`;
}

/**
 * Why the settings cannot be used, or undefined when they can. The base URL must be http(s), so
 * the key can only go where the user pointed it.
 */
export function validateModelSettings(settings: ModelSettings): string | undefined {
  if (settings.provider === 'scripted') return undefined;
  if (settings.model.trim() === '') return 'Enter a model name, e.g. gpt-4.1-mini.';
  if (settings.baseURL.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(settings.baseURL.trim());
  } catch {
    return 'The base URL is not a valid URL, e.g. http://127.0.0.1:11434/v1.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'The base URL must start with http:// or https://.';
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
