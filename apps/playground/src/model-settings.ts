/**
 * Which model the playground's agent talks to: the scripted one (offline, no key), OpenAI's
 * Responses API, Anthropic's Messages API, or any OpenAI-compatible Chat Completions endpoint.
 */
export type ModelProvider = 'scripted' | 'openai' | 'anthropic' | 'openai-compatible';

/** The providers that need a model name and usually a key. */
export type RemoteProvider = Exclude<ModelProvider, 'scripted'>;

/** What one remote provider needs. */
export interface ProviderFields {
  /** Model name, e.g. `gpt-4.1-mini`. */
  model: string;
  /** Sent only to this provider's base URL; may be empty for local servers. */
  apiKey: string;
  /** Empty: the provider's own API (OpenAI's for `openai-compatible`). */
  baseURL: string;
}

/**
 * Which tool calls wait for the human, on top of the tools marked "needs approval" in the
 * Servers panel:
 * - `declared-destructive`: tools whose server declares `destructiveHint: true`;
 * - `may-be-destructive`: every tool that may be destructive by MCP's conservative defaults
 *   (`destructiveToolsNeedApproval`: unannotated tools too);
 * - `marked-only`: only the marked tools.
 */
export type ApprovalMode = 'declared-destructive' | 'may-be-destructive' | 'marked-only';

/** The Settings panel's choices, kept in this browser's localStorage. */
export interface ModelSettings {
  provider: ModelProvider;
  /** Fields per remote provider, kept when switching so that switching back restores them. */
  providers: Record<RemoteProvider, ProviderFields>;
  approvals: ApprovalMode;
}

/** The localStorage key the settings are kept under. */
export const modelSettingsStorageKey = 'switchboard.playground.model-settings';

/** Labels of the providers, as the Settings panel shows them. */
export const providerLabels: Record<ModelProvider, string> = {
  scripted: 'Scripted model (offline, no real LLM)',
  openai: 'OpenAI (Responses API)',
  anthropic: 'Anthropic',
  'openai-compatible': 'OpenAI-compatible',
};

/** The API each remote provider reaches when its base URL is empty. */
export const defaultBaseUrls: Record<RemoteProvider, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  'openai-compatible': 'https://api.openai.com/v1',
};

/** The scripted model (works offline, without any key) and a model name per provider. */
export const defaultModelSettings: ModelSettings = {
  provider: 'scripted',
  providers: {
    openai: { model: 'gpt-4.1-mini', apiKey: '', baseURL: '' },
    anthropic: { model: 'claude-sonnet-4-5', apiKey: '', baseURL: '' },
    'openai-compatible': { model: '', apiKey: '', baseURL: '' },
  },
  approvals: 'declared-destructive',
};

const providers: readonly ModelProvider[] = [
  'scripted',
  'openai',
  'anthropic',
  'openai-compatible',
];
const approvalModes: readonly ApprovalMode[] = [
  'declared-destructive',
  'may-be-destructive',
  'marked-only',
];

/**
 * Reads the settings from localStorage. Anything missing, malformed or unreadable (storage
 * disabled) gives the default for that field. Settings stored by the first playground (one flat
 * OpenAI-compatible provider) are read as the `openai-compatible` fields.
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
  if (!isRecord(stored)) return defaultModelSettings;
  const storedProviders = isRecord(stored['providers']) ? stored['providers'] : {};
  const fields = (provider: RemoteProvider): ProviderFields => {
    const fallback = defaultModelSettings.providers[provider];
    // The first playground kept the OpenAI-compatible fields at the top level.
    const source = isRecord(storedProviders[provider])
      ? storedProviders[provider]
      : provider === 'openai-compatible'
        ? stored
        : {};
    const text = (key: keyof ProviderFields): string =>
      typeof source[key] === 'string' ? source[key] : fallback[key];
    return { model: text('model'), apiKey: text('apiKey'), baseURL: text('baseURL') };
  };
  return {
    provider: providers.find((provider) => provider === stored['provider']) ?? 'scripted',
    providers: {
      openai: fields('openai'),
      anthropic: fields('anthropic'),
      'openai-compatible': fields('openai-compatible'),
    },
    approvals:
      approvalModes.find((mode) => mode === stored['approvals']) ?? defaultModelSettings.approvals,
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

/** Where the provider's requests (and its key) go: the base URL, else the provider's API. */
export function endpointOf(provider: RemoteProvider, fields: ProviderFields): string {
  return fields.baseURL.trim() || defaultBaseUrls[provider];
}

/**
 * A plain label for the header, e.g. `OpenAI-compatible: llama3.2 at 127.0.0.1:11434` or
 * `Anthropic: claude-sonnet-4-5`.
 */
export function describeModel(settings: ModelSettings): string {
  const provider = settings.provider;
  if (provider === 'scripted') return providerLabels.scripted;
  const fields = settings.providers[provider];
  const custom = fields.baseURL.trim() !== '';
  switch (provider) {
    case 'openai':
      return `OpenAI (Responses): ${fields.model}${custom ? ` at ${hostOf(fields.baseURL)}` : ''}`;
    case 'anthropic':
      return `Anthropic: ${fields.model}${custom ? ` at ${hostOf(fields.baseURL)}` : ''}`;
    case 'openai-compatible':
      return `OpenAI-compatible: ${fields.model} at ${hostOf(endpointOf(provider, fields))}`;
  }
}

/**
 * Why the settings cannot be used, or undefined when they can. A base URL must be http(s), so
 * the key can only go where the user pointed it.
 */
export function validateModelSettings(settings: ModelSettings): string | undefined {
  const provider = settings.provider;
  if (provider === 'scripted') return undefined;
  const fields = settings.providers[provider];
  if (fields.model.trim() === '') return 'Enter a model name.';
  const baseURL = fields.baseURL.trim();
  if (baseURL === '') return undefined;
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return 'The base URL is not a valid URL, e.g. http://127.0.0.1:11434/v1.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'The base URL must start with http:// or https://.';
  }
  return undefined;
}

/** The host of a URL, or the text itself when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
