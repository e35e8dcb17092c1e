import type { Model } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import type { ModelSettings } from './model-settings.ts';

/**
 * The model the settings select: the local scripted model server (OpenAI Chat Completions wire
 * format, no real LLM) or any OpenAI-compatible endpoint with the user's own key.
 */
export function createPlaygroundModel(settings: ModelSettings, scriptedBaseUrl: string): Model {
  if (settings.provider === 'scripted') {
    return openaiChatModel({
      model: 'scripted',
      baseURL: scriptedBaseUrl,
      apiKey: 'not-needed',
      // Local and deterministic: a failure will not go away by retrying.
      maxRetries: 0,
    });
  }
  const baseURL = settings.baseURL.trim();
  return openaiChatModel({
    model: settings.model.trim(),
    ...(baseURL === '' ? {} : { baseURL }),
    // Local servers (Ollama, LM Studio) take any key; the SDK needs a non-empty one.
    apiKey: settings.apiKey === '' ? 'not-needed' : settings.apiKey,
  });
}
